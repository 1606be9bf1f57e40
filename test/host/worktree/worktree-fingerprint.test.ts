import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { worktreeFingerprint } from '../../../host/worktree/worktree-fingerprint';

function repo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dex-fingerprint-'));
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'a.txt'), 'one\n');
  git('add', '-A');
  git('commit', '-qm', 'init');
  return dir;
}

describe('the worktree fingerprint runaway protection compares', () => {
  it('stays the same when nothing changed, even when a file is rewritten with what it held', async () => {
    const dir = repo();
    const clean = await worktreeFingerprint(dir);
    expect(await worktreeFingerprint(dir)).toBe(clean);
    writeFileSync(join(dir, 'a.txt'), 'two\n');
    const changed = await worktreeFingerprint(dir);
    expect(changed).not.toBe(clean);
    writeFileSync(join(dir, 'a.txt'), 'two\n');
    expect(await worktreeFingerprint(dir)).toBe(changed);
  });

  it('changes with a tracked file\'s content, an untracked file\'s content, a deletion and a symlink\'s target', async () => {
    const dir = repo();
    const seen = new Set<string>([await worktreeFingerprint(dir)]);
    const step = async (change: () => void) => {
      change();
      const fp = await worktreeFingerprint(dir);
      expect(seen.has(fp)).toBe(false);
      seen.add(fp);
    };
    await step(() => writeFileSync(join(dir, 'new.txt'), 'x\n'));
    await step(() => writeFileSync(join(dir, 'new.txt'), 'y\n')); // same status line, other content
    await step(() => writeFileSync(join(dir, 'a.txt'), 'one!\n'));
    await step(() => symlinkSync('/etc/hostname', join(dir, 'link')));
    await step(() => {
      rmSync(join(dir, 'link'));
      symlinkSync('/etc/hosts', join(dir, 'link'));
    });
    await step(() => rmSync(join(dir, 'a.txt')));
  });
});

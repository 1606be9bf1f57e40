import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolInputError, resolveInWorktree } from '../activities/worktree-paths';

describe('resolveInWorktree', () => {
  let root: string;
  let outside: string;

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'dex-paths-')));
    outside = realpathSync(mkdtempSync(join(tmpdir(), 'dex-outside-')));
    mkdirSync(join(root, '.git'));
    writeFileSync(join(root, '.git', 'config'), '[core]\n');
    mkdirSync(join(root, 'src', 'lib'), { recursive: true });
    writeFileSync(join(root, 'src', 'lib', 'math.js'), 'x');
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  const refusal = (path: string): string => {
    try {
      resolveInWorktree(root, path);
    } catch (err) {
      expect(err).toBeInstanceOf(ToolInputError);
      return (err as Error).message;
    }
    throw new Error(`${path} was accepted`);
  };

  it('accepts nested paths, existing or not, and the root itself', () => {
    expect(resolveInWorktree(root, 'src/lib/math.js')).toBe(join(root, 'src', 'lib', 'math.js'));
    expect(resolveInWorktree(root, 'src/new/deep/file.ts')).toBe(join(root, 'src', 'new', 'deep', 'file.ts'));
    expect(resolveInWorktree(root, './src/../README.md')).toBe(join(root, 'README.md'));
    expect(resolveInWorktree(root, '.')).toBe(root);
    expect(resolveInWorktree(root, '.gitignore')).toBe(join(root, '.gitignore'));
  });

  it('refuses paths that climb out of the root', () => {
    expect(refusal('../../etc/passwd')).toBe('path "../../etc/passwd" is outside the worktree');
    expect(refusal('src/../../x')).toContain('outside the worktree');
  });

  it('refuses absolute paths', () => {
    expect(refusal('/etc/passwd')).toContain('is absolute');
  });

  it('refuses symlinks that lead out of the root, at any component', () => {
    symlinkSync('/etc', join(root, 'etc'));
    symlinkSync(outside, join(root, 'src', 'away'));
    expect(refusal('etc/passwd')).toContain('outside the worktree');
    expect(refusal('etc')).toContain('outside the worktree');
    expect(refusal('src/away/new-file.txt')).toContain('outside the worktree');
  });

  it('refuses a dangling symlink whose target could be anywhere', () => {
    symlinkSync(join(outside, 'not-yet'), join(root, 'trap'));
    expect(refusal('trap')).toContain('broken symbolic link');
  });

  it('accepts symlinks that stay inside the root', () => {
    symlinkSync(join(root, 'src', 'lib'), join(root, 'lib'));
    expect(resolveInWorktree(root, 'lib/math.js')).toBe(join(root, 'src', 'lib', 'math.js'));
  });

  it('refuses the root .git, directly or through a symlink', () => {
    expect(refusal('.git/config')).toContain('inside .git');
    expect(refusal('.git')).toContain('inside .git');
    symlinkSync(join(root, '.git'), join(root, 'g'));
    expect(refusal('g/config')).toContain('.git');
  });
});

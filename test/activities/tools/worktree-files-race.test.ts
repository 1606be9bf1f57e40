// The agent's file tools against a command that swaps a folder for a link while they run, and
// the tools' own hygiene: bounded fd use, no leaks, no host path in any message.
import { execFileSync, spawn } from 'node:child_process';
import { linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { READ_FILE_LIMIT_BYTES, type AgentToolOutcome } from '../../../activities/tools/agent-tools';
import { PATH_DEPTH_LIMIT } from '../../../host/worktree/worktree-paths';
import { SECRET, useHostileWorktree } from '../../support/projects/hostile-worktree';

describe('file tools racing a hostile command', () => {
  const w = useHostileWorktree();
  const { run, refused } = w;

  describe('a folder swapped for a link while the tools run', () => {
    it('never writes outside, never reads the outside secret, never lists or edits outside (300 rounds)', async () => {
      const vault = join(w.outside, 'vault');
      mkdirSync(vault);
      writeFileSync(join(vault, 'secret.txt'), SECRET);
      writeFileSync(join(vault, 'only-outside.txt'), '');
      // A separate process, so the swaps really run between the tool's system calls; each state
      // holds a random 0-300 µs, about as long as a tool call's steps take.
      const swapper = spawn(
        process.execPath,
        [
          '-e',
          `const fs = require('fs');
           const [dir, vault] = process.argv.slice(1);
           const hold = () => { const end = process.hrtime.bigint() + BigInt(Math.floor(Math.random() * 300_000)); while (process.hrtime.bigint() < end); };
           process.stdout.write('ready\\n');
           for (;;) {
             try { fs.unlinkSync(dir); } catch {}
             try { fs.mkdirSync(dir); fs.writeFileSync(dir + '/secret.txt', 'decoy'); } catch {}
             hold();
             try { fs.rmSync(dir, { recursive: true, force: true }); } catch {}
             try { fs.symlinkSync(vault, dir); } catch {}
             hold();
           }`,
          join(w.root, 'dir'),
          vault,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const outcomes = new Map<string, number>();
      const count = (kind: string, result: AgentToolOutcome) => {
        const key = `${kind}: ${result.isError ? result.content.replace(/"[^"]*"/g, '…') : 'ok'}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      };
      try {
        await new Promise((resolve, reject) => {
          swapper.stdout.once('data', resolve);
          swapper.once('exit', () => reject(new Error('the swapper ended before it started')));
        });
        for (let i = 0; i < 300; i++) {
          const [write, read, list, edit] = await Promise.all([
            run('write_file', { path: 'dir/f.txt', content: `round ${i}` }),
            run('read_file', { path: 'dir/secret.txt' }),
            run('list_files', { path: 'dir' }),
            run('edit_file', { path: 'dir/secret.txt', old_string: 'SECRET', new_string: 'PWNED' }),
          ]);
          expect(readdirSync(vault).sort()).toEqual(['only-outside.txt', 'secret.txt']);
          expect(readFileSync(join(vault, 'secret.txt'), 'utf8')).toBe(SECRET);
          expect(read.content).not.toContain('SECRET');
          expect(list.content).not.toContain('only-outside');
          count('write', write);
          count('read', read);
          count('list', list);
          count('edit', edit);
        }
      } finally {
        swapper.kill('SIGKILL');
        await new Promise((resolve) => swapper.once('exit', resolve));
      }
      expect(readFileSync(join(vault, 'secret.txt'), 'utf8')).toBe(SECRET);
      // The race really ran: the tools met both the real folder and the link.
      expect((outcomes.get('write: ok') ?? 0) + (outcomes.get('read: ok') ?? 0)).toBeGreaterThan(0);
      expect([...outcomes.keys()].some((key) => key.includes('symbolic link'))).toBe(true);
    }, 60_000);
  });

  it(`lists a folder ${PATH_DEPTH_LIMIT} levels down from the root as an entry, holding an fd per level only up to there`, async () => {
    const deep = Array.from({ length: PATH_DEPTH_LIMIT + 5 }, () => 'd');
    mkdirSync(join(w.root, ...deep), { recursive: true });
    writeFileSync(join(w.root, ...deep, 'bottom.txt'), '');
    writeFileSync(join(w.root, ...deep.slice(0, 3), 'shallow.txt'), '');
    expect((await run('list_files', { path: 'd' })).content).toBe(
      `${deep.slice(0, PATH_DEPTH_LIMIT).join('/')}/\nd/d/d/shallow.txt`,
    );
  });

  it('closes every fd it opens, on success and on refusal', async () => {
    symlinkSync(w.outside, join(w.root, 'out'));
    linkSync(join(w.outside, 'secret.txt'), join(w.root, 'hl.txt'));
    execFileSync('mkfifo', [join(w.root, 'pipe')]);
    const openFds = () => readdirSync('/proc/self/fd').length;
    const batch = () =>
      Promise.all([
        run('read_file', { path: 'src/a.txt' }),
        run('read_file', { path: 'hl.txt' }),
        run('read_file', { path: 'pipe' }),
        run('read_file', { path: 'out/secret.txt' }),
        run('write_file', { path: 'new/deep/b.txt', content: 'x' }),
        run('write_file', { path: 'src/a.txt/x', content: 'x' }),
        run('edit_file', { path: 'src/a.txt', old_string: 'nowhere', new_string: 'x' }),
        run('list_files', {}),
        run('list_files', { path: 'out' }),
      ]);
    await batch(); // warms up whatever the runtime opens once
    const before = openFds();
    for (let i = 0; i < 20; i++) await batch();
    expect(openFds()).toBeLessThanOrEqual(before + 3); // a leak per call would be 20 or more
  });

  it('names no host path in any error', async () => {
    symlinkSync(w.outside, join(w.root, 'out'));
    linkSync(join(w.outside, 'secret.txt'), join(w.root, 'hl.txt'));
    execFileSync('mkfifo', [join(w.root, 'pipe')]);
    writeFileSync(join(w.root, 'big.txt'), 'x'.repeat(READ_FILE_LIMIT_BYTES + 1));
    const calls: [string, Record<string, unknown>][] = [
      ['read_file', { path: 'missing/deep/file.txt' }],
      ['read_file', { path: 'src/a.txt/below' }],
      ['read_file', { path: 'out/secret.txt' }],
      ['read_file', { path: 'hl.txt' }],
      ['read_file', { path: 'pipe' }],
      ['read_file', { path: 'big.txt' }],
      ['read_file', { path: 'src' }],
      ['read_file', { path: '../x' }],
      ['read_file', { path: `${'n'.repeat(300)}.txt` }],
      ['write_file', { path: 'src', content: 'x' }],
      ['write_file', { path: 'src/a.txt/below', content: 'x' }],
      ['write_file', { path: 'out/x/y', content: 'x' }],
      ['edit_file', { path: 'missing.txt', old_string: 'a', new_string: 'b' }],
      ['list_files', { path: 'missing' }],
      ['list_files', { path: 'out' }],
    ];
    for (const [name, input] of calls) await refused(name, input, /./);
  });
});

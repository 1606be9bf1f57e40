// The agent's file tools against a command that attacks them: hard links, FIFOs, sockets,
// devices, symbolic links and .git. Real files only; the race is in worktree-files-race.test.ts.
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  constants,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { READ_FILE_LIMIT_BYTES } from '../../../activities/tools/agent-tools';
import { readAtMost } from '../../../host/worktree/worktree-files';
import { SECRET, useHostileWorktree, within } from '../../support/projects/hostile-worktree';

const isRoot = process.getuid?.() === 0;

type StatLike = { isFile(): boolean };
let fileHandleProto: { stat: (...args: unknown[]) => Promise<StatLike> };

beforeAll(async () => {
  const handle = await open(process.execPath);
  fileHandleProto = Object.getPrototypeOf(handle) as typeof fileHandleProto;
  await handle.close();
});

/**
 * Runs `hooks` right before and after every FileHandle#stat (the tools' fstat of the file they
 * opened), to play a command acting exactly between two steps of a tool; returns the undo.
 */
function aroundFileHandleStat(hooks: { before?: () => void; after?: (info: StatLike) => void }): () => void {
  const realStat = fileHandleProto.stat;
  const spy = vi.spyOn(fileHandleProto, 'stat').mockImplementation(async function (this: unknown, ...args: unknown[]) {
    hooks.before?.();
    const info = await realStat.apply(this, args);
    hooks.after?.(info);
    return info;
  });
  return () => spy.mockRestore();
}

describe('file tools against a hostile worktree', () => {
  const w = useHostileWorktree();
  const { run, refused, secretIntact } = w;

  describe('hard links', () => {
    it('refuses to read, write or edit a hard link to a file outside, which stays unchanged', async () => {
      linkSync(join(w.outside, 'secret.txt'), join(w.root, 'hl.txt'));
      const hint = /"hl.txt" has 2 hard links; .*use run_command/;
      await refused('read_file', { path: 'hl.txt' }, hint);
      await refused('write_file', { path: 'hl.txt', content: 'PWNED' }, hint);
      await refused('edit_file', { path: 'hl.txt', old_string: 'SECRET', new_string: 'PWNED' }, hint);
      expect(readFileSync(join(w.outside, 'secret.txt'), 'utf8')).toBe(SECRET);
    });

    it('refuses a hard link removed between the open and fstat, when the file left open is the one outside', async () => {
      linkSync(join(w.outside, 'secret.txt'), join(w.root, 'hl.txt'));
      // The command removes its link right after the tool's open: fstat then counts one link, the outside name.
      const restore = aroundFileHandleStat({
        before: () => {
          if (existsSync(join(w.root, 'hl.txt'))) rmSync(join(w.root, 'hl.txt'));
        },
      });
      try {
        await refused('read_file', { path: 'hl.txt' }, '"hl.txt" changed while it was being opened; try again');
        linkSync(join(w.outside, 'secret.txt'), join(w.root, 'hl.txt'));
        await refused('write_file', { path: 'hl.txt', content: 'PWNED' }, /changed while it was being opened/);
      } finally {
        restore();
      }
      expect(readFileSync(join(w.outside, 'secret.txt'), 'utf8')).toBe(SECRET);
    });

    it('refuses a hard link between two files inside too: the fd cannot tell where the other name is', async () => {
      linkSync(join(w.root, 'src', 'a.txt'), join(w.root, 'src', 'b.txt'));
      await refused('read_file', { path: 'src/b.txt' }, /2 hard links/);
    });
  });

  describe('files that are not regular', () => {
    it('refuses a FIFO at once, without tying up the threads other reads need', async () => {
      const fifo = join(w.root, 'pipe');
      execFileSync('mkfifo', [fifo]);
      try {
        // More reads than libuv has threads (4): one blocking open each would stall everything.
        const fifoReads = Array.from({ length: 6 }, () => run('read_file', { path: 'pipe' }));
        const [normal, ...fifos] = await within(1_000, Promise.all([run('read_file', { path: 'src/a.txt' }), ...fifoReads]));
        expect(normal).toEqual({ content: 'inside\n', isError: false });
        for (const result of fifos) expect(result).toEqual({ content: '"pipe" is a named pipe (FIFO); the file tools open regular files only', isError: true });
      } finally {
        // Releases any open a broken implementation left blocked: O_RDWR on a FIFO never blocks.
        closeSync(openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK));
      }
    });

    it('refuses a FIFO as the target of write_file and edit_file, with and without a reader, writing nothing', async () => {
      execFileSync('mkfifo', [join(w.root, 'pipe')]);
      await within(1_000, refused('write_file', { path: 'pipe', content: 'x' }, /"pipe" is not a regular file/));
      const reader = openSync(join(w.root, 'pipe'), constants.O_RDONLY | constants.O_NONBLOCK);
      try {
        await within(1_000, refused('write_file', { path: 'pipe', content: 'x' }, /named pipe \(FIFO\)/));
        await within(1_000, refused('edit_file', { path: 'pipe', old_string: 'a', new_string: 'b' }, /named pipe \(FIFO\)/));
        expect(readSync(reader, Buffer.alloc(16))).toBe(0); // end of file: no writer left, nothing written
      } finally {
        closeSync(reader);
      }
    });

    it('refuses a socket', async () => {
      const server: Server = createServer();
      await new Promise<void>((resolve) => server.listen(join(w.root, 'sock'), resolve));
      try {
        await refused('read_file', { path: 'sock' }, /"sock" is not a regular file/);
        await refused('write_file', { path: 'sock', content: 'x' }, /"sock" is not a regular file/);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('refuses /dev/zero through a symbolic link', async () => {
      symlinkSync('/dev/zero', join(w.root, 'zero'));
      await within(1_000, refused('read_file', { path: 'zero' }, /"zero" is a symbolic link/));
      await refused('write_file', { path: 'zero', content: 'x' }, /"zero" is a symbolic link/);
    });

    it.runIf(isRoot)('refuses a device node in the worktree (as root, who can make one)', async () => {
      execFileSync('mknod', [join(w.root, 'zero'), 'c', '1', '5']);
      await within(1_000, refused('read_file', { path: 'zero' }, '"zero" is a device; the file tools open regular files only'));
      await refused('write_file', { path: 'zero', content: 'x' }, /is a device/);
    });
  });

  describe('size', () => {
    it('refuses a file that grows past the limit after fstat: the bytes read count, not the size', async () => {
      const path = join(w.root, 'grows.log');
      writeFileSync(path, 'small\n');
      let grown = false;
      // Grows the file right after the tool's fstat of it, as a concurrent command would.
      const restore = aroundFileHandleStat({
        after: (info) => {
          if (info.isFile() && !grown) {
            grown = true;
            appendFileSync(path, 'x'.repeat(READ_FILE_LIMIT_BYTES));
          }
        },
      });
      try {
        const content = await refused('read_file', { path: 'grows.log' }, /read_file reads up to/);
        expect(grown).toBe(true);
        expect(content).toBe(
          `"grows.log" has more than ${READ_FILE_LIMIT_BYTES} bytes; read_file reads up to ${READ_FILE_LIMIT_BYTES} ` +
            '(use run_command with head, tail or sed to read a part of it)',
        );
      } finally {
        restore();
      }
    });

    it('readAtMost reads to the end, not to the size fstat gives', async () => {
      const status = await open('/proc/self/status'); // fstat says 0 bytes
      try {
        expect((await status.stat()).size).toBe(0);
        expect((await readAtMost(status, 10)).length).toBe(10);
      } finally {
        await status.close();
      }
    });
  });

  describe('symbolic links', () => {
    it('refuses a link to a file outside as the last component, for every tool', async () => {
      symlinkSync(join(w.outside, 'secret.txt'), join(w.root, 'link.txt'));
      const message = '"link.txt" is a symbolic link; the file tools do not follow links, use run_command';
      await refused('read_file', { path: 'link.txt' }, message);
      await refused('write_file', { path: 'link.txt', content: 'PWNED' }, message);
      await refused('edit_file', { path: 'link.txt', old_string: 'SECRET', new_string: 'PWNED' }, message);
      await refused('list_files', { path: 'link.txt' }, message);
      secretIntact();
    });

    it('refuses a link to a folder outside as a middle component, creating nothing outside', async () => {
      symlinkSync(w.outside, join(w.root, 'src', 'out'));
      const message = /^"src\/out" in "src\/out\/.*" is a symbolic link; the file tools do not follow links, use run_command$/;
      await refused('read_file', { path: 'src/out/secret.txt' }, message);
      await refused('write_file', { path: 'src/out/secret.txt', content: 'PWNED' }, message);
      await refused('write_file', { path: 'src/out/new.txt', content: 'x' }, message);
      await refused('write_file', { path: 'src/out/deep/new.txt', content: 'x' }, message);
      await refused('edit_file', { path: 'src/out/secret.txt', old_string: 'SECRET', new_string: 'PWNED' }, message);
      await refused('list_files', { path: 'src/out/deep' }, message);
      await refused('list_files', { path: 'src/out' }, '"src/out" is a symbolic link; the file tools do not follow links, use run_command');
      secretIntact();
    });

    it('lists a link as an entry and never lists what it points to', async () => {
      symlinkSync(w.outside, join(w.root, 'src', 'out'));
      expect(await run('list_files', {})).toEqual({ content: 'src/a.txt\nsrc/out', isError: false });
    });

    it('refuses a dangling link as a write target, creating nothing where it points', async () => {
      symlinkSync(join(w.outside, 'planted.txt'), join(w.root, 'trap.txt'));
      await refused('write_file', { path: 'trap.txt', content: 'x' }, /"trap.txt" is a symbolic link/);
      secretIntact();
    });

    it('refuses a link that stays inside the root too (a deliberate change: links are never followed)', async () => {
      symlinkSync(join(w.root, 'src'), join(w.root, 'alias'));
      await refused('read_file', { path: 'alias/a.txt' }, /"alias" in "alias\/a.txt" is a symbolic link/);
    });
  });

  describe('.git', () => {
    it('refuses .git at any depth, in any letter case, for every tool, and touches nothing there', async () => {
      mkdirSync(join(w.root, 'sub', '.Git'), { recursive: true });
      writeFileSync(join(w.root, 'sub', '.Git', 'config'), '[core]\n');
      for (const path of ['.git', '.git/config', '.GIT/HEAD', 'sub/.Git/config', 'a/b/.gIt/x', 'src/../.git/HEAD', '.git/../src/a.txt']) {
        await refused('read_file', { path }, /is inside \.git; git internals are off limits/);
        await refused('write_file', { path, content: 'x' }, /inside \.git/);
        await refused('edit_file', { path, old_string: 'core', new_string: 'x' }, /inside \.git/);
        await refused('list_files', { path }, /inside \.git/);
      }
      expect(readFileSync(join(w.root, 'sub', '.Git', 'config'), 'utf8')).toBe('[core]\n');
      expect(existsSync(join(w.root, '.git'))).toBe(false);
      expect(existsSync(join(w.root, 'a'))).toBe(false);
    });

    it('leaves .git folders and files out of listings, in any letter case', async () => {
      mkdirSync(join(w.root, 'sub', '.GIT'), { recursive: true });
      writeFileSync(join(w.root, 'sub', '.GIT', 'HEAD'), 'ref');
      writeFileSync(join(w.root, 'src', '.git'), 'gitdir: elsewhere\n'); // a worktree's .git is a file
      writeFileSync(join(w.root, 'src', '.gitignore'), '');
      expect((await run('list_files', {})).content).toBe('src/.gitignore\nsrc/a.txt');
    });
  });

});

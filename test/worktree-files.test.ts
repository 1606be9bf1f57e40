// The agent's file tools against a command that attacks them: hard links, FIFOs, sockets,
// devices, symbolic links and a folder swapped for a link while a tool runs. Real files only.
import { execFileSync, spawn } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  constants,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { READ_FILE_LIMIT_BYTES, executeAgentTool, type AgentToolOutcome } from '../activities/agent-tools';
import { LIST_DEPTH_LIMIT } from '../activities/file-tree';
import { readAtMost } from '../activities/worktree-files';

const limits = { commandTimeoutMs: 10_000, outputLimitBytes: 1024 };
const SECRET = 'SECRET outside the worktree\n';
const isRoot = process.getuid?.() === 0;

/** `promise`, or a rejection once `ms` have passed. */
async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still running after ${ms}ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

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
  let root: string;
  let outside: string;
  const run = (name: string, input: unknown): Promise<AgentToolOutcome> => executeAgentTool(name, input, { root, limits });
  const secretIntact = (): void => {
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
  };
  /** The message of a refused call, checked to name no host path. */
  const refused = async (name: string, input: unknown, expected: string | RegExp): Promise<string> => {
    const result = await run(name, input);
    expect(result.isError, `${name} ${JSON.stringify(input)} was not refused: ${result.content}`).toBe(true);
    expect(result.content).toMatch(expected);
    for (const host of [root, outside, '/proc/', tmpdir()]) expect(result.content).not.toContain(host);
    return result.content;
  };

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'dex-files-')));
    outside = realpathSync(mkdtempSync(join(tmpdir(), 'dex-outside-')));
    writeFileSync(join(outside, 'secret.txt'), SECRET);
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'a.txt'), 'inside\n');
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  describe('hard links', () => {
    it('refuses to read, write or edit a hard link to a file outside, which stays unchanged', async () => {
      linkSync(join(outside, 'secret.txt'), join(root, 'hl.txt'));
      const hint = /"hl.txt" has 2 hard links; .*use run_command/;
      await refused('read_file', { path: 'hl.txt' }, hint);
      await refused('write_file', { path: 'hl.txt', content: 'PWNED' }, hint);
      await refused('edit_file', { path: 'hl.txt', old_string: 'SECRET', new_string: 'PWNED' }, hint);
      expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
    });

    it('refuses a hard link removed between the open and fstat, when the file left open is the one outside', async () => {
      linkSync(join(outside, 'secret.txt'), join(root, 'hl.txt'));
      // The command removes its link right after the tool's open: fstat then counts one link, the outside name.
      const restore = aroundFileHandleStat({
        before: () => {
          if (existsSync(join(root, 'hl.txt'))) rmSync(join(root, 'hl.txt'));
        },
      });
      try {
        await refused('read_file', { path: 'hl.txt' }, '"hl.txt" changed while it was being opened; try again');
        linkSync(join(outside, 'secret.txt'), join(root, 'hl.txt'));
        await refused('write_file', { path: 'hl.txt', content: 'PWNED' }, /changed while it was being opened/);
      } finally {
        restore();
      }
      expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
    });

    it('refuses a hard link between two files inside too: the fd cannot tell where the other name is', async () => {
      linkSync(join(root, 'src', 'a.txt'), join(root, 'src', 'b.txt'));
      await refused('read_file', { path: 'src/b.txt' }, /2 hard links/);
    });
  });

  describe('files that are not regular', () => {
    it('refuses a FIFO at once, without tying up the threads other reads need', async () => {
      const fifo = join(root, 'pipe');
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
      execFileSync('mkfifo', [join(root, 'pipe')]);
      await within(1_000, refused('write_file', { path: 'pipe', content: 'x' }, /"pipe" is not a regular file/));
      const reader = openSync(join(root, 'pipe'), constants.O_RDONLY | constants.O_NONBLOCK);
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
      await new Promise<void>((resolve) => server.listen(join(root, 'sock'), resolve));
      try {
        await refused('read_file', { path: 'sock' }, /"sock" is not a regular file/);
        await refused('write_file', { path: 'sock', content: 'x' }, /"sock" is not a regular file/);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('refuses /dev/zero through a symbolic link', async () => {
      symlinkSync('/dev/zero', join(root, 'zero'));
      await within(1_000, refused('read_file', { path: 'zero' }, /"zero" is a symbolic link/));
      await refused('write_file', { path: 'zero', content: 'x' }, /"zero" is a symbolic link/);
    });

    it.runIf(isRoot)('refuses a device node in the worktree (as root, who can make one)', async () => {
      execFileSync('mknod', [join(root, 'zero'), 'c', '1', '5']);
      await within(1_000, refused('read_file', { path: 'zero' }, '"zero" is a device; the file tools open regular files only'));
      await refused('write_file', { path: 'zero', content: 'x' }, /is a device/);
    });
  });

  describe('size', () => {
    it('refuses a file that grows past the limit after fstat: the bytes read count, not the size', async () => {
      const path = join(root, 'grows.log');
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
      symlinkSync(join(outside, 'secret.txt'), join(root, 'link.txt'));
      const message = '"link.txt" is a symbolic link; the file tools do not follow links, use run_command';
      await refused('read_file', { path: 'link.txt' }, message);
      await refused('write_file', { path: 'link.txt', content: 'PWNED' }, message);
      await refused('edit_file', { path: 'link.txt', old_string: 'SECRET', new_string: 'PWNED' }, message);
      await refused('list_files', { path: 'link.txt' }, message);
      secretIntact();
    });

    it('refuses a link to a folder outside as a middle component, creating nothing outside', async () => {
      symlinkSync(outside, join(root, 'src', 'out'));
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
      symlinkSync(outside, join(root, 'src', 'out'));
      expect(await run('list_files', {})).toEqual({ content: 'src/a.txt\nsrc/out', isError: false });
    });

    it('refuses a dangling link as a write target, creating nothing where it points', async () => {
      symlinkSync(join(outside, 'planted.txt'), join(root, 'trap.txt'));
      await refused('write_file', { path: 'trap.txt', content: 'x' }, /"trap.txt" is a symbolic link/);
      secretIntact();
    });

    it('refuses a link that stays inside the root too (a deliberate change: links are never followed)', async () => {
      symlinkSync(join(root, 'src'), join(root, 'alias'));
      await refused('read_file', { path: 'alias/a.txt' }, /"alias" in "alias\/a.txt" is a symbolic link/);
    });
  });

  describe('.git', () => {
    it('refuses .git at any depth, in any letter case, for every tool, and touches nothing there', async () => {
      mkdirSync(join(root, 'sub', '.Git'), { recursive: true });
      writeFileSync(join(root, 'sub', '.Git', 'config'), '[core]\n');
      for (const path of ['.git', '.git/config', '.GIT/HEAD', 'sub/.Git/config', 'a/b/.gIt/x', 'src/../.git/HEAD', '.git/../src/a.txt']) {
        await refused('read_file', { path }, /is inside \.git; git internals are off limits/);
        await refused('write_file', { path, content: 'x' }, /inside \.git/);
        await refused('edit_file', { path, old_string: 'core', new_string: 'x' }, /inside \.git/);
        await refused('list_files', { path }, /inside \.git/);
      }
      expect(readFileSync(join(root, 'sub', '.Git', 'config'), 'utf8')).toBe('[core]\n');
      expect(existsSync(join(root, '.git'))).toBe(false);
      expect(existsSync(join(root, 'a'))).toBe(false);
    });

    it('leaves .git folders and files out of listings, in any letter case', async () => {
      mkdirSync(join(root, 'sub', '.GIT'), { recursive: true });
      writeFileSync(join(root, 'sub', '.GIT', 'HEAD'), 'ref');
      writeFileSync(join(root, 'src', '.git'), 'gitdir: elsewhere\n'); // a worktree's .git is a file
      writeFileSync(join(root, 'src', '.gitignore'), '');
      expect((await run('list_files', {})).content).toBe('src/.gitignore\nsrc/a.txt');
    });
  });

  describe('a folder swapped for a link while the tools run', () => {
    it('never writes outside, never reads the outside secret, never lists or edits outside (300 rounds)', async () => {
      const vault = join(outside, 'vault');
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
          join(root, 'dir'),
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

  it(`lists a folder nested deeper than ${LIST_DEPTH_LIMIT} levels as an entry, holding an fd per level only up to there`, async () => {
    const deep = Array.from({ length: LIST_DEPTH_LIMIT + 5 }, () => 'd');
    mkdirSync(join(root, ...deep), { recursive: true });
    writeFileSync(join(root, ...deep, 'bottom.txt'), '');
    writeFileSync(join(root, ...deep.slice(0, 3), 'shallow.txt'), '');
    expect((await run('list_files', { path: 'd' })).content).toBe(
      `${deep.slice(0, LIST_DEPTH_LIMIT + 2).join('/')}/\nd/d/d/shallow.txt`,
    );
  });

  it('closes every fd it opens, on success and on refusal', async () => {
    symlinkSync(outside, join(root, 'out'));
    linkSync(join(outside, 'secret.txt'), join(root, 'hl.txt'));
    execFileSync('mkfifo', [join(root, 'pipe')]);
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
    symlinkSync(outside, join(root, 'out'));
    linkSync(join(outside, 'secret.txt'), join(root, 'hl.txt'));
    execFileSync('mkfifo', [join(root, 'pipe')]);
    writeFileSync(join(root, 'big.txt'), 'x'.repeat(READ_FILE_LIMIT_BYTES + 1));
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

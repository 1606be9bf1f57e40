import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LIST_FILES_LIMIT, READ_FILE_LIMIT_BYTES, executeAgentTool } from '../../../activities/tools/agent-tools';
import type { ToolLimits } from '../../../core/task/task-types';
import { describeToolCall } from '../../../core/task/agent-tools';
import { PATH_BYTES_LIMIT, PATH_DEPTH_LIMIT } from '../../../host/worktree/worktree-paths';

const limits: ToolLimits = { commandTimeoutMs: 10_000, outputLimitBytes: 1024 };

describe('executeAgentTool', () => {
  let root: string;
  const run = (name: string, input: unknown, lim: ToolLimits = limits) => executeAgentTool(name, input, { root, limits: lim });
  const file = (path: string): string => readFileSync(join(root, path), 'utf8');

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'dex-tools-')));
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'math.js'), 'export const add = (a, b) => a + b;\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  describe('read_file', () => {
    it('returns the text', async () => {
      expect(await run('read_file', { path: 'src/math.js' })).toEqual({
        content: 'export const add = (a, b) => a + b;\n',
        isError: false,
      });
    });

    it('reports a missing file, a folder, a big file and a path outside as errors', async () => {
      expect(await run('read_file', { path: 'nope.txt' })).toEqual({ content: '"nope.txt" does not exist', isError: true });
      expect((await run('read_file', { path: 'src' })).content).toContain('is a folder');
      writeFileSync(join(root, 'big.txt'), 'x'.repeat(READ_FILE_LIMIT_BYTES + 1));
      const big = await run('read_file', { path: 'big.txt' });
      expect(big.isError).toBe(true);
      expect(big.content).toContain(`${READ_FILE_LIMIT_BYTES + 1} bytes`);
      expect(await run('read_file', { path: '../../etc/passwd' })).toEqual({
        content: 'path "../../etc/passwd" is outside the worktree',
        isError: true,
      });
    });

    it('reads a file of exactly the limit, and names the root and a file used as a folder', async () => {
      writeFileSync(join(root, 'full.txt'), 'x'.repeat(READ_FILE_LIMIT_BYTES));
      expect((await run('read_file', { path: 'full.txt' })).content).toHaveLength(READ_FILE_LIMIT_BYTES);
      expect(await run('read_file', { path: '.' })).toEqual({ content: '"." is the worktree root, a folder; use list_files', isError: true });
      expect(await run('read_file', { path: 'src/math.js/x' })).toEqual({
        content: 'a part of "src/math.js/x" is a file, not a folder',
        isError: true,
      });
    });
  });

  describe('write_file', () => {
    it('creates parent folders and overwrites, shorter content leaving nothing of the old', async () => {
      expect(await run('write_file', { path: 'a/b/c.txt', content: 'one and more' })).toEqual({ content: 'ok', isError: false });
      await run('write_file', { path: 'a/b/c.txt', content: 'two' });
      expect(file('a/b/c.txt')).toBe('two');
    });

    it('refuses a path 3,000 folders deep (or past the byte limit) with a tool error, making no folder', async () => {
      const deep = await run('write_file', { path: `${'d/'.repeat(3000)}f.txt`, content: 'x' });
      expect(deep.isError).toBe(true);
      expect(deep.content).toContain(`is 3001 folders deep; the file tools take paths up to ${PATH_DEPTH_LIMIT} folders deep and ${PATH_BYTES_LIMIT} bytes long`);
      const long = await run('write_file', { path: `${'n'.repeat(200)}/`.repeat(6), content: 'x' });
      expect(long.content).toContain('bytes long');
      expect(existsSync(join(root, 'd'))).toBe(false);
      for (const tool of ['read_file', 'edit_file', 'list_files']) {
        const input = { path: `${'d/'.repeat(100)}f.txt`, old_string: 'a', new_string: 'b' };
        expect(await run(tool, input), tool).toMatchObject({ isError: true, content: expect.stringContaining('is 101 folders deep') });
      }
    });

    it('refuses to write onto a folder', async () => {
      expect(await run('write_file', { path: 'src', content: 'x' })).toEqual({ content: '"src" is a folder, not a file', isError: true });
    });

    it('refuses to write through a symlink, which it never follows', async () => {
      const outside = mkdtempSync(join(tmpdir(), 'dex-outside-'));
      symlinkSync(outside, join(root, 'out'));
      const result = await run('write_file', { path: 'out/evil.txt', content: 'x' });
      expect(result).toEqual({
        content: '"out" in "out/evil.txt" is a symbolic link; the file tools do not follow links, use run_command',
        isError: true,
      });
      expect(() => readFileSync(join(outside, 'evil.txt'))).toThrow();
      rmSync(outside, { recursive: true, force: true });
    });
  });

  describe('edit_file', () => {
    it('replaces a string found exactly once, taking the replacement literally', async () => {
      expect(await run('edit_file', { path: 'src/math.js', old_string: 'a + b', new_string: "'$&' + b" })).toEqual({
        content: 'ok',
        isError: false,
      });
      expect(file('src/math.js')).toBe("export const add = (a, b) => '$&' + b;\n");
    });

    it('says when old_string is not found', async () => {
      const result = await run('edit_file', { path: 'src/math.js', old_string: 'a * b', new_string: 'x' });
      expect(result).toEqual({ content: 'old_string was not found in "src/math.js"', isError: true });
    });

    it('says how often old_string was found when more than once, and changes nothing', async () => {
      writeFileSync(join(root, 'twice.txt'), 'foo bar foo\n');
      const result = await run('edit_file', { path: 'twice.txt', old_string: 'foo', new_string: 'baz' });
      expect(result.isError).toBe(true);
      expect(result.content).toContain('found 2 times');
      expect(file('twice.txt')).toBe('foo bar foo\n');
    });

    it('refuses a file over the read limit and a missing one, changing nothing', async () => {
      writeFileSync(join(root, 'big.txt'), `foo${'x'.repeat(READ_FILE_LIMIT_BYTES)}`);
      const big = await run('edit_file', { path: 'big.txt', old_string: 'foo', new_string: 'bar' });
      expect(big.isError).toBe(true);
      expect(big.content).toContain(`read_file reads up to ${READ_FILE_LIMIT_BYTES}`);
      expect(file('big.txt').startsWith('foo')).toBe(true);
      expect(await run('edit_file', { path: 'nope.txt', old_string: 'a', new_string: 'b' })).toEqual({
        content: '"nope.txt" does not exist',
        isError: true,
      });
    });
  });

  describe('list_files', () => {
    it('lists files recursively, sorted, relative to the root, without .git and node_modules', async () => {
      mkdirSync(join(root, '.git'));
      writeFileSync(join(root, '.git', 'HEAD'), 'ref');
      mkdirSync(join(root, 'node_modules', 'x'), { recursive: true });
      writeFileSync(join(root, 'node_modules', 'x', 'index.js'), '');
      writeFileSync(join(root, 'README.md'), '');
      mkdirSync(join(root, 'src', 'deep'));
      writeFileSync(join(root, 'src', 'deep', 'z.js'), '');
      expect(await run('list_files', {})).toEqual({ content: 'README.md\nsrc/deep/z.js\nsrc/math.js', isError: false });
      expect(await run('list_files', { path: 'src/deep' })).toEqual({ content: 'src/deep/z.js', isError: false });
      expect(await run('list_files', { path: './src/../src/deep/' })).toEqual({ content: 'src/deep/z.js', isError: false });
      expect(await run('list_files', { path: 'src/math.js' })).toEqual({ content: 'src/math.js', isError: false });
      expect(await run('list_files', { path: 'nope' })).toEqual({ content: '"nope" does not exist', isError: true });
    });

    it(`caps the list at ${LIST_FILES_LIMIT} lines with a note`, async () => {
      mkdirSync(join(root, 'many'));
      for (let i = 0; i < LIST_FILES_LIMIT + 5; i++) writeFileSync(join(root, 'many', `f${String(i).padStart(5, '0')}`), '');
      const lines = (await run('list_files', { path: 'many' })).content.split('\n');
      expect(lines).toHaveLength(LIST_FILES_LIMIT + 1);
      expect(lines.at(-1)).toContain('5 more files not shown');
    });
  });

  describe('run_command', () => {
    it('returns the exit code and the output, and a failing command is no tool error', async () => {
      expect(await run('run_command', { command: 'echo out; echo err >&2; exit 3' })).toEqual({
        content: 'exit code: 3\nout\nerr\n',
        isError: false,
      });
    });

    it('runs in the worktree root', async () => {
      expect((await run('run_command', { command: 'cat src/math.js' })).content).toContain('export const add');
    });

    it('keeps only the tail of long output', async () => {
      const result = await run('run_command', { command: 'seq 1 5000' }, { ...limits, outputLimitBytes: 100 });
      const [status, note, ...rest] = result.content.split('\n');
      expect(status).toBe('exit code: 0');
      expect(note).toMatch(/^\[\d+ earlier bytes of output omitted\]$/);
      expect(Buffer.byteLength(rest.join('\n'))).toBeLessThanOrEqual(100);
      expect(rest.at(-2)).toBe('5000');
    });

    it('kills the whole process group on timeout, quickly, and reports it as an error', async () => {
      const started = Date.now();
      const result = await run('run_command', { command: 'echo started; sleep 30 & sleep 30' }, { ...limits, commandTimeoutMs: 300 });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(result).toEqual({ content: 'timed out after 300ms\nstarted\n', isError: true });
    });
  });

  describe('bad calls', () => {
    it('reports an unknown tool', async () => {
      expect(await run('delete_everything', {})).toEqual({
        content: 'unknown tool "delete_everything"; the tools are read_file, write_file, edit_file, list_files, run_command, remember',
        isError: true,
      });
    });

    it('reports missing and wrong-typed fields by name', async () => {
      expect(await run('read_file', {})).toEqual({ content: 'read_file needs "path" as a string; it is missing', isError: true });
      expect(await run('write_file', { path: 'x', content: 42 })).toEqual({
        content: 'write_file needs "content" as a string; got number',
        isError: true,
      });
      expect((await run('run_command', 'ls')).isError).toBe(true);
    });
  });
});

describe('describeToolCall', () => {
  it('reads as one short step: the tool and its main argument, cut at 80 characters', () => {
    expect(describeToolCall('edit_file', { path: 'src/math.js', old_string: 'a', new_string: 'b' })).toBe('edit_file src/math.js');
    expect(describeToolCall('run_command', { command: 'npm   test\n -- --watch=false' })).toBe('run_command npm test -- --watch=false');
    expect(describeToolCall('list_files', {})).toBe('list_files');
    const long = describeToolCall('run_command', { command: 'x'.repeat(200) });
    expect(long).toHaveLength('run_command '.length + 80);
    expect(long.endsWith('…')).toBe(true);
  });
});

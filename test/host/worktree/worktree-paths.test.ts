import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PATH_BYTES_LIMIT, PATH_DEPTH_LIMIT, ToolInputError, resolveInWorktree, worktreePathParts } from '../../../host/worktree/worktree-paths';

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

  it('refuses a symbolic link as any component, naming it', () => {
    symlinkSync('/etc', join(root, 'etc'));
    symlinkSync(outside, join(root, 'src', 'away'));
    expect(refusal('etc/passwd')).toBe('"etc" in "etc/passwd" is a symbolic link; the file tools do not follow links, use run_command');
    expect(refusal('etc')).toBe('"etc" is a symbolic link; the file tools do not follow links, use run_command');
    expect(refusal('src/away/new-file.txt')).toContain('"src/away" in "src/away/new-file.txt" is a symbolic link');
  });

  it('refuses a dangling symlink whose target could be anywhere', () => {
    symlinkSync(join(outside, 'not-yet'), join(root, 'trap'));
    expect(refusal('trap')).toContain('"trap" is a symbolic link');
  });

  it('refuses symlinks that stay inside the root too (links are never followed)', () => {
    symlinkSync(join(root, 'src', 'lib'), join(root, 'lib'));
    expect(refusal('lib/math.js')).toContain('"lib" in "lib/math.js" is a symbolic link');
  });

  it('refuses .git at any depth, in any letter case, and a link to it', () => {
    for (const path of ['.git/config', '.git', '.GIT', 'src/.Git/config', 'a/b/.gIt', '.git/../src', 'src/../.git/HEAD']) {
      expect(refusal(path)).toBe(`path ${JSON.stringify(path)} is inside .git; git internals are off limits`);
    }
    symlinkSync(join(root, '.git'), join(root, 'g'));
    expect(refusal('g/config')).toContain('is a symbolic link');
  });

  it('refuses a NUL byte', () => {
    expect(refusal('src/a\0b')).toContain('contains a NUL byte');
  });
});

describe('worktreePathParts', () => {
  it('works out . and .. by name, the root being no parts', () => {
    expect(worktreePathParts('src/./lib//math.js')).toEqual(['src', 'lib', 'math.js']);
    expect(worktreePathParts('src/lib/../../README.md')).toEqual(['README.md']);
    expect(worktreePathParts('')).toEqual([]);
    expect(worktreePathParts('./')).toEqual([]);
    expect(worktreePathParts('.gitignore/x.github')).toEqual(['.gitignore', 'x.github']);
  });

  it('refuses climbing out even when it comes back', () => {
    expect(() => worktreePathParts('../main/src')).toThrow('is outside the worktree');
    expect(() => worktreePathParts('src/../../x')).toThrow(ToolInputError);
  });

  it(`takes paths up to ${PATH_DEPTH_LIMIT} folders deep and ${PATH_BYTES_LIMIT} bytes long, and refuses deeper or longer ones`, () => {
    const deepest = Array.from({ length: PATH_DEPTH_LIMIT }, () => 'd').join('/');
    expect(worktreePathParts(deepest)).toHaveLength(PATH_DEPTH_LIMIT);
    expect(() => worktreePathParts(`${deepest}/f`)).toThrow(`is ${PATH_DEPTH_LIMIT + 1} folders deep; the file tools take paths up to ${PATH_DEPTH_LIMIT} folders deep`);
    const longest = `${'x'.repeat(250)}/`.repeat(4) + 'y'.repeat(PATH_BYTES_LIMIT - 1004);
    expect(Buffer.byteLength(longest)).toBe(PATH_BYTES_LIMIT);
    expect(worktreePathParts(longest)).toHaveLength(5);
    expect(() => worktreePathParts(`${longest}y`)).toThrow(`is ${PATH_BYTES_LIMIT + 1} bytes long`);
    // Multibyte names count in bytes, and `..` does not shorten the path as given.
    expect(() => worktreePathParts('é'.repeat(PATH_BYTES_LIMIT / 2 + 1))).toThrow(ToolInputError);
    expect(() => worktreePathParts('a/../'.repeat(300))).toThrow('bytes long');
    // 3,000 levels: refused with a short message, not one that repeats the whole path.
    const message = (() => {
      try {
        worktreePathParts(`${'d/'.repeat(3000)}f.txt`);
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(message).toMatch(/^path "(d\/){40}…" is 3001 folders deep; /);
    expect(message!.length).toBeLessThan(300);
  });
});

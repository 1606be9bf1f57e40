import { describe, expect, it } from 'vitest';
import { matchesAnyGlob } from '../../../core/task/path-glob';

const matches = (glob: string, path: string): boolean => matchesAnyGlob(path, [glob]);

describe('matchesAnyGlob', () => {
  it('matches a glob without / at the root only', () => {
    expect(matches('dex.config.yaml', 'dex.config.yaml')).toBe(true);
    expect(matches('dex.config.yaml', 'sub/dex.config.yaml')).toBe(false);
    expect(matches('dex.config.yaml', 'dex.config.yaml.bak')).toBe(false);
    expect(matches('dex.config.yaml', 'dexXconfigXyaml')).toBe(false);
    expect(matches('/dex.config.yaml', 'dex.config.yaml')).toBe(true);
  });

  it('matches ** at any depth, none included', () => {
    const glob = '.github/workflows/**';
    expect(matches(glob, '.github/workflows/ci.yml')).toBe(true);
    expect(matches(glob, '.github/workflows/deep/er/x.yml')).toBe(true);
    expect(matches(glob, '.github/workflows')).toBe(true);
    expect(matches(glob, '.github/workflows2/ci.yml')).toBe(false);
    expect(matches(glob, '.github/dependabot.yml')).toBe(false);
    expect(matches(glob, 'x/.github/workflows/ci.yml')).toBe(false);

    expect(matches('**/Makefile', 'Makefile')).toBe(true);
    expect(matches('**/Makefile', 'a/b/Makefile')).toBe(true);
    expect(matches('**/Makefile', 'a/b/Makefile.in')).toBe(false);
    expect(matches('src/**/secret.ts', 'src/secret.ts')).toBe(true);
    expect(matches('src/**/secret.ts', 'src/a/b/secret.ts')).toBe(true);
    expect(matches('src/**/secret.ts', 'lib/src/secret.ts')).toBe(false);
    expect(matches('**', 'anything/at/all')).toBe(true);
  });

  it('keeps * and ? within one segment', () => {
    expect(matches('*.yaml', 'dex.config.yaml')).toBe(true);
    expect(matches('*.yaml', 'conf/dex.config.yaml')).toBe(false);
    expect(matches('.github/*/ci.yml', '.github/workflows/ci.yml')).toBe(true);
    expect(matches('.github/*/ci.yml', '.github/a/b/ci.yml')).toBe(false);
    expect(matches('file?.txt', 'file1.txt')).toBe(true);
    expect(matches('file?.txt', 'file12.txt')).toBe(false);
    expect(matches('a?b', 'a/b')).toBe(false);
  });

  it('means everything below for a trailing /', () => {
    expect(matches('scripts/', 'scripts/deploy.sh')).toBe(true);
    expect(matches('scripts/', 'scripts/a/b.sh')).toBe(true);
    expect(matches('scripts/', 'scriptsX/a.sh')).toBe(false);
  });

  it('is case-sensitive and takes regular-expression characters literally', () => {
    expect(matches('Dex.config.yaml', 'dex.config.yaml')).toBe(false);
    expect(matches('a+b(c)[d]{1}^$|.txt', 'a+b(c)[d]{1}^$|.txt')).toBe(true);
    expect(matches('a+b.txt', 'aab.txt')).toBe(false);
  });

  it('matches any of several globs, and none of none', () => {
    const globs = ['dex.config.yaml', '.github/workflows/**'];
    expect(matchesAnyGlob('.github/workflows/ci.yml', globs)).toBe(true);
    expect(matchesAnyGlob('dex.config.yaml', globs)).toBe(true);
    expect(matchesAnyGlob('src/index.ts', globs)).toBe(false);
    expect(matchesAnyGlob('dex.config.yaml', [])).toBe(false);
  });
});

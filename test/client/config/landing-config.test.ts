import { describe, expect, it } from 'vitest';
import { parseDexConfig } from '../../../client/config/config-file';

describe('land: in dex.config.yaml', () => {
  it('reads a remote to push to', () => {
    expect(parseDexConfig('land: { remote: origin, branch: main, mode: push, finalizeAttempts: 3 }\n', '/r').land).toEqual({
      remote: 'origin', branch: 'main', mode: 'push', finalizeAttempts: 3,
    });
    expect(parseDexConfig('', '/r').land).toBeUndefined();
  });

  it('reads branch mode and a landCommand to run after the push', () => {
    expect(parseDexConfig('land: { remote: origin, mode: branch }\nlandCommand: gh pr create --fill\n', '/r').land).toEqual({
      remote: 'origin', mode: 'branch', command: 'gh pr create --fill',
    });
    expect(parseDexConfig('land: { remote: origin, branch: develop, mode: branch }\n', '/r').land).toEqual({ remote: 'origin', branch: 'develop', mode: 'branch' });
  });

  it.each([
    ['land: { remote: origin, mode: merge }', 'land.mode'],
    ['land: { remote: "-x" }', 'land.remote'],
    ['land: { branch: main }', 'land.remote'],
    ['land: { remote: origin, force: true }', 'land.force'],
    ['land: { finalizeAttempts: 0 }', 'land.finalizeAttempts'],
    ['landCommand: "gh pr create"', 'landCommand'],
    ['land: { remote: origin, mode: push }\nlandCommand: "gh pr create"', 'landCommand'],
    ['land: { remote: origin }\nlandCommand: "gh pr create"', 'landCommand'],
    ['land: { remote: origin, mode: branch }\nlandCommand: "  "', 'landCommand'],
    ['land: { mode: branch }', 'land.remote'],
  ])('refuses %s, naming %s', (yaml, key) => {
    expect(() => parseDexConfig(`${yaml}\n`, '/r')).toThrow(key);
  });
});

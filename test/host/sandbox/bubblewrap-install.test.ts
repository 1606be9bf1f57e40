import { spawnSync } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedBwrap, provisionBubblewrap } from '../../../host/sandbox/bubblewrap-install';

describe("dex setup's sandbox: bubblewrap fetched into dex's cache from the system's package source", () => {
  const before = process.env.DEX_CACHE;
  beforeAll(() => {
    process.env.DEX_CACHE = mkdtempSync(join(tmpdir(), 'dex-cache-bwrap-'));
  });
  afterAll(() => {
    if (before === undefined) delete process.env.DEX_CACHE;
    else process.env.DEX_CACHE = before;
  });

  it('works from an empty cache, confines a command, and a second call fetches nothing', () => {
    const lines: string[] = [];
    const path = provisionBubblewrap((line) => lines.push(line));
    expect(path).toBe(cachedBwrap());
    expect(path.startsWith(process.env.DEX_CACHE!)).toBe(true);
    expect(lines[0]).toMatch(/apt-get download bubblewrap/);
    // Its own namespaces: the command inside sees itself as PID 1's child in a PID namespace of its own.
    const run = spawnSync(path, ['--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--unshare-pid', '--', '/bin/sh', '-c', 'echo $$'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('2');

    const fetched = statSync(path).mtimeMs;
    const again: string[] = [];
    expect(provisionBubblewrap((line) => again.push(line))).toBe(path);
    expect(again).toEqual([]);
    expect(statSync(path).mtimeMs).toBe(fetched);
  });
});

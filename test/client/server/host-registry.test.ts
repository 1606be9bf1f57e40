/**
 * The notes of what dex leaves running (client/server/host-registry.ts): one host per key, a gone
 * host's note taken over, the queues asked for listed once, and hosts of different codecs apart.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimHost, hostKey, liveHost, recordedServers, recordServer, registeredHosts, registryDir, releaseHost, wantedQueues, wantQueue } from '../../../client/server/host-registry';

const fresh = () => mkdtempSync(join(tmpdir(), 'dex-registry-'));
/** A pid no process has: one that just exited. */
const gonePid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

describe('host registry', () => {
  it('keeps one directory per user and server address, outside any DEX_HOME', () => {
    const a = registryDir('127.0.0.1:7233', { XDG_RUNTIME_DIR: '/run/user/1000' });
    expect(a).toMatch(/^\/run\/user\/1000\/dex-[^/]+\/workflow-hosts\/127\.0\.0\.1_7233$/);
    expect(registryDir('127.0.0.1:40000', { XDG_RUNTIME_DIR: '/run/user/1000' })).not.toBe(a);
  });

  it('keys hosts by code version and codec, never naming the key itself', () => {
    expect(hostKey('abc', undefined)).toBe('abc-plain-r1');
    expect(hostKey('abc', '  ')).toBe('abc-plain-r1');
    const sealed = hostKey('abc', 'k1:c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTIzNA==');
    expect(sealed).toMatch(/^abc-[0-9a-f]{8}-r1$/);
    expect(sealed).not.toContain('c2Vj');
    expect(hostKey('abc', 'k2:b3RoZXJvdGhlcm90aGVyb3RoZXJvdGhlcjEyMzQ=')).not.toBe(sealed);
  });

  it('lets one live process hold a key, and takes over a gone one’s note', () => {
    const dir = fresh();
    expect(claimHost(dir, 'k', process.pid)).toBe(true);
    expect(claimHost(dir, 'k', process.pid)).toBe(true);
    expect(claimHost(dir, 'k', gonePid())).toBe(false);
    expect(liveHost(dir, 'k')).toBe(process.pid);
    releaseHost(dir, 'k', 12345);
    expect(liveHost(dir, 'k')).toBe(process.pid);
    releaseHost(dir, 'k', process.pid);
    expect(liveHost(dir, 'k')).toBeUndefined();

    writeFileSync(join(dir, 'k.pid'), String(gonePid()));
    expect(liveHost(dir, 'k')).toBeUndefined();
    expect(registeredHosts(dir)).toEqual([{ key: 'k', pid: undefined }]);
    expect(claimHost(dir, 'k', process.pid)).toBe(true);
    expect(registeredHosts(dir)).toEqual([{ key: 'k', pid: process.pid }]);
  });

  it('lists each queue asked for once, with when it was last asked', async () => {
    const dir = fresh();
    expect(wantedQueues(dir, 'k')).toEqual([]);
    wantQueue(dir, 'k', { namespace: 'default', queue: 'a' });
    wantQueue(dir, 'k', { namespace: 'default', queue: 'b' });
    const first = wantedQueues(dir, 'k').find((q) => q.queue === 'a')!.askedMs;
    await new Promise((resolve) => setTimeout(resolve, 20));
    wantQueue(dir, 'k', { namespace: 'default', queue: 'a' });
    wantQueue(dir, 'k', { namespace: 'other', queue: 'a' });
    const byName = wantedQueues(dir, 'k').sort((x, y) => `${x.namespace}/${x.queue}`.localeCompare(`${y.namespace}/${y.queue}`));
    expect(byName.map(({ namespace, queue }) => ({ namespace, queue }))).toEqual([
      { namespace: 'default', queue: 'a' },
      { namespace: 'default', queue: 'b' },
      { namespace: 'other', queue: 'a' },
    ]);
    expect(byName[0].askedMs).toBeGreaterThan(first);
    expect(byName[1].askedMs).toBeLessThan(byName[0].askedMs);
    expect(wantedQueues(dir, 'other-key')).toEqual([]);
  });

  it('notes the servers a command started, and lists only the live ones', () => {
    const dir = fresh();
    recordServer(dir, gonePid());
    recordServer(dir, process.pid);
    expect(recordedServers(dir)).toEqual([process.pid]);
    expect(registeredHosts(dir)).toEqual([]);
  });
});

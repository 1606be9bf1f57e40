import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApplicationFailure } from '@temporalio/common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withMirrorLock } from '../../../host/git/mirror-lock';

// The lock one mirror's work holds (host/git/mirror-lock.ts): one holder at a time, a holder that
// died taken over, a live one waited for until the wait is up.
let dir: string;
let lock: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dex-mirror-lock-'));
  lock = join(dir, 'demo.git.lock');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The pid of a process of this host that has ended. */
const deadPid = (): number => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

describe("a mirror's lock", () => {
  it('lets one holder work at a time, however many ask at once, and is gone after', async () => {
    let inside = 0;
    let most = 0;
    const work = async (n: number) => {
      most = Math.max(most, (inside += 1));
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      inside -= 1;
      return n;
    };
    expect(await Promise.all([1, 2, 3, 4].map((n) => withMirrorLock(lock, () => work(n))))).toEqual([1, 2, 3, 4]);
    expect(most).toBe(1);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('is let go when the work fails', async () => {
    await expect(withMirrorLock(lock, () => Promise.reject(new Error('fetch failed')))).rejects.toThrow('fetch failed');
    expect(existsSync(lock)).toBe(false);
  });

  it('is taken over from a process of this host that is gone (a worker killed mid-fetch)', async () => {
    writeFileSync(lock, `${deadPid()} ${hostname()}\n`);
    expect(await withMirrorLock(lock, async () => 'ran', 0)).toBe('ran');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('is waited for while its holder lives, or when it is of another host, then fails with retry naming the holder', async () => {
    for (const holder of [`${process.pid} ${hostname()}`, `${deadPid()} another-host`]) {
      writeFileSync(lock, `${holder}\n`);
      const busy = await withMirrorLock(lock, async () => 'ran', 0).then(() => expect.unreachable('it ran'), (err: ApplicationFailure) => err);
      expect([busy.type, busy.nonRetryable, busy.message]).toEqual(['MirrorBusy', false, `the mirror's lock ${lock} is held (by ${holder}) after 0 s`]);
      expect(readdirSync(dir)).toEqual(['demo.git.lock']);
    }
  });
});

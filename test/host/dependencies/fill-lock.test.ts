import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SetupStep } from '../../../core/run/setup-types';
import { DependencyCache } from '../../../host/dependencies/dependency-cache';

const FIXTURE = join(__dirname, '..', '..', 'fixtures', 'fill-cache-key.ts');
const TIMES = { staleMs: 60_000, refreshMs: 20, pollMs: 20 };

/** What a worker process printed: its setup's steps and report, or its error. */
type Outcome = { steps?: SetupStep[]; report?: string; error?: string };

// Every fleet's installs are let go at the end, so a failed test leaves no install waiting.
const fleets: string[] = [];
afterEach(() => {
  for (const root of fleets.splice(0)) if (existsSync(root)) writeFileSync(join(root, 'go'), '');
});

/**
 * A shared cache folder, two git worktrees, and an install that counts its runs in `installs` and
 * holds until the test writes `go` (so the other worker surely meets the lock); with `failFirst`
 * its first run fails.
 */
function fleet(opts: { failFirst?: boolean } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'dex-fill-'));
  fleets.push(root);
  const installs = join(root, 'installs');
  const script = join(root, 'install.sh');
  writeFileSync(
    script,
    [
      `echo run >> ${installs}`,
      // Bounded, and over once the folder is gone: no install outlives a failed test.
      `i=0; until [ -e ${root}/go ] || [ ! -d ${root} ] || [ $i -ge 1500 ]; do sleep 0.02; i=$((i+1)); done`,
      opts.failFirst ? `if [ "$(wc -l < ${installs})" -eq 1 ]; then echo 'the registry said no' >&2; exit 1; fi` : '',
      "mkdir -p node_modules/dep && echo 'module.exports = 42;' > node_modules/dep/index.js",
    ].join('\n'),
  );
  const worktree = (name: string) => {
    const dir = join(root, name);
    mkdirSync(dir);
    spawnSync('git', ['init', '-q'], { cwd: dir });
    return dir;
  };
  const worker = async (name: string): Promise<Outcome> => {
    const args = ['--import', 'tsx', FIXTURE, join(root, 'cache'), worktree(name), `sh ${script}`, join(root, `waiting-${name}`)];
    const { stdout } = await promisify(execFile)(process.execPath, args, { timeout: 60_000 });
    return JSON.parse(stdout) as Outcome;
  };
  const runs = () => (existsSync(installs) ? readFileSync(installs, 'utf8').split('\n').filter(Boolean).length : 0);
  return { root, worker, runs, waiting: () => readdirSync(root).some((name) => name.startsWith('waiting-')) };
}

/** The entries of a cache folder (its dot-files are staging, locks and download caches). */
const entries = (cache: string) => readdirSync(cache).filter((name) => !name.startsWith('.'));

describe('two worker processes filling one key of a shared cache at once', () => {
  it('install it once: the second waits for the first, then restores its entry', { timeout: 30_000 }, async () => {
    const { root, worker, runs, waiting } = fleet();
    const both = Promise.all([worker('a'), worker('b')]);
    // One install runs and the other worker waits for it: only then may the install finish.
    await vi.waitFor(() => expect(runs() === 1 && waiting()).toBe(true), { timeout: 20_000, interval: 20 });
    writeFileSync(join(root, 'go'), '');
    const outcomes = await both;

    expect(runs()).toBe(1);
    expect(outcomes.map((o) => o.steps?.[0]?.source).sort()).toEqual(['cache', 'installed']);
    expect(outcomes.find((o) => o.steps?.[0]?.source === 'cache')?.report).toMatch(/^waited \d+ s for another worker's install of commands \(\w+\)$/m);
    expect(entries(join(root, 'cache'))).toHaveLength(1);
    for (const name of ['a', 'b']) expect(readFileSync(join(root, name, 'node_modules/dep/index.js'), 'utf8')).toContain('42');
    expect(readdirSync(join(root, 'cache')).filter((name) => name.startsWith('.fill-'))).toEqual([]);
  });

  it('when the first install fails, the waiting worker installs it itself', { timeout: 30_000 }, async () => {
    const { root, worker, runs, waiting } = fleet({ failFirst: true });
    const both = Promise.all([worker('a'), worker('b')]);
    await vi.waitFor(() => expect(runs() === 1 && waiting()).toBe(true), { timeout: 20_000, interval: 20 });
    writeFileSync(join(root, 'go'), '');
    const outcomes = await both;

    expect(runs()).toBe(2);
    const failed = outcomes.find((o) => o.error);
    const waiter = outcomes.find((o) => o.steps);
    expect(failed?.error).toMatch(/setup failed/);
    expect(waiter?.steps?.[0]?.source).toBe('installed');
    expect(entries(join(root, 'cache'))).toHaveLength(1);
    const name = existsSync(join(root, 'a/node_modules')) ? 'a' : 'b';
    expect(readFileSync(join(root, name, 'node_modules/dep/index.js'), 'utf8')).toContain('42');
  });
});

describe('a stale fill lock', () => {
  const lockOf = (cacheDir: string, key: string) => join(cacheDir, `.fill-${key}.lock`);
  const leaveLock = (cacheDir: string, key: string, holder: { host: string; pid: number; token?: string }, ageMs = 0) => {
    mkdirSync(cacheDir, { recursive: true });
    const path = lockOf(cacheDir, key);
    writeFileSync(path, JSON.stringify({ token: 'left', takenAt: new Date().toISOString(), ...holder }));
    const at = new Date(Date.now() - ageMs);
    utimesSync(path, at, at);
    return path;
  };
  const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;
  const fresh = () => mkdtempSync(join(tmpdir(), 'dex-fill-lock-'));

  it("is taken over at once when its holder on this host is dead, or is this pid's earlier life (a restarted container)", async () => {
    for (const holder of [{ host: hostname(), pid: deadPid() }, { host: hostname(), pid: process.pid, token: 'before-restart' }]) {
      const root = fresh();
      const cache = new DependencyCache(root, { lock: TIMES });
      leaveLock(root, 'k', holder);
      const claim = await cache.claim('k', 'npm', { waitMs: 60_000 });
      expect(claim).toMatchObject({ held: true, waitedMs: 0 });
      expect(JSON.parse(readFileSync(lockOf(root, 'k'), 'utf8'))).toMatchObject({ host: hostname(), pid: process.pid });
      await claim.release();
      expect(existsSync(lockOf(root, 'k'))).toBe(false);
    }
  });

  it("of another host is taken over once not refreshed within the bound, and waited for until then", async () => {
    const root = fresh();
    const cache = new DependencyCache(root, { lock: TIMES });
    leaveLock(root, 'old', { host: 'worker-elsewhere', pid: 1 }, TIMES.staleMs + 1_000);
    expect((await cache.claim('old', 'npm', { waitMs: 60_000 })).held).toBe(true);

    leaveLock(root, 'live', { host: 'worker-elsewhere', pid: 1 });
    const lines: (string | undefined)[] = [];
    // A live holder elsewhere: this worker waits, saying for whom, and past its bound installs without the lock.
    const claim = await cache.claim('live', 'npm', { waitMs: 100, onWait: (line) => lines.push(line) });
    expect(claim.held).toBe(false);
    expect(claim.waitedMs).toBeGreaterThan(0);
    expect(lines[0]).toBe("waiting for another worker's install of npm (live), held by worker-elsewhere pid 1");
    expect(lines.at(-1)).toBeUndefined();

    // A cancelled activity stops waiting at once.
    const cancel = new AbortController();
    const cancelled = cache.claim('live', 'npm', { waitMs: 60_000, onWait: (line) => line && cancel.abort(), signal: cancel.signal });
    await expect(cancelled).rejects.toMatchObject({ name: 'AbortError' });
  });

  it("is kept fresh by a live holder, so another claim waits; sweep clears stale locks and leaves live ones", async () => {
    const root = fresh();
    const cache = new DependencyCache(root, { lock: TIMES });
    const claim = await cache.claim('held', 'npm', { waitMs: 0 });
    const path = lockOf(root, 'held');
    const past = new Date(Date.now() - 10_000);
    utimesSync(path, past, past);
    await vi.waitFor(() => expect(statSync(path).mtimeMs).toBeGreaterThan(past.getTime() + 5_000), { timeout: 5_000, interval: 20 });
    expect((await cache.claim('held', 'npm', { waitMs: 50 })).held).toBe(false);

    const dead = leaveLock(root, 'dead', { host: hostname(), pid: deadPid() });
    const old = leaveLock(root, 'old', { host: 'worker-elsewhere', pid: 1 }, TIMES.staleMs + 1_000);
    const live = leaveLock(root, 'live', { host: 'worker-elsewhere', pid: 1 });
    await cache.sweep();
    expect([dead, old, live, path].map(existsSync)).toEqual([false, false, true, true]);
    await claim.release();
  });
});

import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createVerifyBaselineActivities } from '../../../activities/verify/verify-baseline';
import { DEFAULT_SANDBOX, type SandboxPolicy } from '../../../core/safety/sandbox-policy';
import type { DexStore } from '../../../store/dex-store';
import { openSqliteDexStore } from '../../../store/sqlite/sqlite-dex-store';
import { sampleRepo } from '../../support/env/dev-server-env';
import { runActivity } from '../../support/env/mock-activity';
import { offlineDeps } from '../../support/projects/offline-deps';
import { plainGit as git } from '../../support/env/plain-git';

// Unconfined, so the command can count its runs in a file outside the checkout.
const UNCONFINED: SandboxPolicy = { ...DEFAULT_SANDBOX, mode: 'off' };

describe('verifyBaseline', () => {
  let dir: string;
  let store: DexStore;

  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'dex-baseline-')));
    store = openSqliteDexStore(join(dir, 'store.db'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs once for parallel tasks on one base: the second waits for the first, then reads the stored result', async () => {
    const { verifyBaseline } = createVerifyBaselineActivities(offlineDeps(store, dir));
    const repo = sampleRepo();
    const counter = join(dir, 'runs.txt');
    const input = { repoPath: repo, baseSha: git(repo, 'rev-parse', 'HEAD').trim(), commands: [`echo run >> ${counter}; sleep 0.5; exit 1`], timeoutMs: 10_000, sandbox: UNCONFINED };
    const [a, b] = await Promise.all([runActivity(verifyBaseline, [input]), runActivity(verifyBaseline, [input])]);
    const c = await runActivity(verifyBaseline, [input]);
    expect(readFileSync(counter, 'utf8')).toBe('run\n');
    expect(a.failures).toHaveLength(1);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });

  it('two worker processes on one host run the same baseline at once without removing each other\'s checkout', async () => {
    // Two factories stand for two processes: each has its own in-process single-flight.
    const first = createVerifyBaselineActivities(offlineDeps(store, dir));
    const second = createVerifyBaselineActivities(offlineDeps(store, dir));
    const repo = sampleRepo();
    const counter = join(dir, 'runs.txt');
    const input = { repoPath: repo, baseSha: git(repo, 'rev-parse', 'HEAD').trim(), commands: [`echo run >> ${counter}; sleep 0.5; test -f package.json; exit 1`], timeoutMs: 10_000, sandbox: UNCONFINED };
    const [a, b] = await Promise.all([runActivity(first.verifyBaseline, [input]), runActivity(second.verifyBaseline, [input])]);
    expect(readFileSync(counter, 'utf8')).toBe('run\nrun\n');
    expect(a.failures).toHaveLength(1);
    expect(b).toEqual(a);
    expect(readdirSync(join(dir, 'baselines'))).toEqual([]);
  });

  it('removes a checkout left by a process that is gone, and keeps one a live process holds', async () => {
    const { verifyBaseline } = createVerifyBaselineActivities(offlineDeps(store, dir));
    const repo = sampleRepo();
    const input = { repoPath: repo, baseSha: git(repo, 'rev-parse', 'HEAD').trim(), commands: ['exit 0'], timeoutMs: 10_000, sandbox: UNCONFINED };
    // The folder name the activity gives this baseline (activities/verify/verify-baseline.ts).
    const id = createHash('sha256').update(JSON.stringify([realpathSync(repo), input.baseSha, input.commands, 'off'])).digest('hex').slice(0, 16);
    const folder = `${input.baseSha.slice(0, 12)}-${id}`;
    const gone = join(dir, 'baselines', `${folder}-2147483646-dead`);
    const live = join(dir, 'baselines', `${folder}-${process.pid}-other`);
    for (const path of [gone, live]) mkdirSync(path, { recursive: true });
    await runActivity(verifyBaseline, [input]);
    expect(readdirSync(join(dir, 'baselines'))).toEqual([`${folder}-${process.pid}-other`]);
  });
});

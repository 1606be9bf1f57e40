// Landing through pull requests (land.mode: pr, docs/landing-through-prs.md) on the time-skipping
// server: the workflow's waits (CI for hours, a review for a day, merge retries) pass in seconds.
// The forge is scripted (test/support/forge/scripted-forge.ts) over a real bare repository; the tasks, finalize,
// git and verify are dex's own, the model a cassette.
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRoadmapInput } from '../../../client/requests/roadmap-request';
import { readSettings } from '../../../client/settings';
import type { PullRequestLanding } from '../../../core/roadmap/pull-request-types';
import type { RoadmapInput, RoadmapResult } from '../../../core/roadmap/roadmap-types';
import type { RunStatus } from '../../../core/run/run-types';
import { ciChangedSignal, decideUpdate, reviewSubmittedSignal } from '../../../core/run/definitions';
import type { Review } from '../../../core/forge/review';
import { runDetails } from '../../../workflows/run/run-details';
import { renderLiveStatus } from '../../../client/render/run-status';
import { renderRunList, runRow } from '../../../client/render/run-list';
import { completionTurn, inPhase, toolTurn } from '../../support/model/cassette-builder';
import { failureOf, useDexEnvironment, waitForGate } from '../../support/env/dex-environment';
import { bareRemote } from '../../support/plans/landing-fixture';
import { roadmapRepo, subjects } from '../../support/plans/roadmap-fixture';
import { scriptedForge } from '../../support/forge/scripted-forge';

const ONE = 'exports.one = () => 1;\n';
const TEST = "const test = require('node:test');\nconst assert = require('node:assert');\ntest('one', () => assert.strictEqual(require('../src/shared').one(), 1));\n";
const HOUR = 3600_000;
const turns = (task: string) => [
  toolTurn(task, ['write_file', { path: 'src/shared.js', content: ONE }], ['write_file', { path: 'test/one.test.js', content: TEST }]),
  completionTurn(task, { status: 'complete', summary: `${task}: added one` }),
];

let remote = '';
const forge = scriptedForge(() => remote, () => dex.env.currentTimeMs());
const dex = useDexEnvironment({
  server: 'time-skipping',
  cassette: [
    ...['C1', 'R1', 'F1', 'M1', 'W1', 'T1', 'X1'].flatMap(turns),
    // X1's fix-ci run: it changes something, verify passes, but the check it was told of still fails.
    ...inPhase('fix-ci', [toolTurn('X1', ['write_file', { path: 'src/fix.js', content: 'exports.fix = 1;\n' }]), completionTurn('X1', { status: 'complete', summary: 'X1: tried a fix' })]),
    ...turns('V1'),
    // V1's first revise run answers one comment with a change and asks back on the other; its second takes the answer.
    ...inPhase('revise', [
      toolTurn('V1', ['write_file', { path: 'src/shared.js', content: `${ONE}exports.uno = exports.one;\n` }]),
      completionTurn('V1', { status: 'complete', summary: 'c601: added uno beside one\nc602? Should zero be tested too, or only one?' }),
      toolTurn('V1', ['write_file', { path: 'test/zero.test.js', content: "require('node:test')('zero', () => {});\n" }]),
      completionTurn('V1', { status: 'complete', summary: 'c603: added a test for zero' }),
    ]),
  ],
  queue: 'dex-ts-landing-pr',
  activities: forge.activities as unknown as Record<string, (...args: never[]) => Promise<unknown>>,
});

const git = (repo: string, ...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();

/** A one-task roadmap landing through pull requests on a bare `origin`, started as `dex run` would. */
async function startLanding(taskId: string, pr: Partial<PullRequestLanding>) {
  const repo = roadmapRepo(`- [ ] ${taskId}: Add one to src/shared.js\n`, 'verify: ["node --test"]\n');
  remote = bareRemote(repo);
  const settings = { ...readSettings({}), hostQueue: dex.worker.hostQueue, taskQueue: dex.worker.taskQueue };
  const checked = buildRoadmapInput({ roadmap: join(repo, 'ROADMAP.md'), llm: 'anthropic' }, settings, { ANTHROPIC_API_KEY: 'test-key' });
  const land = {
    remote: 'origin',
    mode: 'pr' as const,
    pr: { forge: 'github' as const, tokenEnv: 'GITHUB_TOKEN', owner: 'acme', repo: 'app', profile: 'auto' as const, fixAttempts: 2, ciTimeoutMinutes: 1440, mergeMethod: 'merge' as const, ...pr },
  };
  const wallStart = Date.now();
  const handle = await dex.start('roadmapWorkflow', checked.workflowId, { ...checked.input, land } satisfies RoadmapInput);
  const ended = async () => {
    const result = (await handle.result()) as RoadmapResult;
    // The server's time from the run's start to its close (after it, the server may skip on).
    const { startTime, closeTime } = await handle.describe();
    const simulatedMs = closeTime!.getTime() - startTime.getTime();
    const wallMs = Date.now() - wallStart;
    console.log(`${taskId}: ${(simulatedMs / 1000).toFixed(0)} s simulated, ${(wallMs / 1000).toFixed(1)} s wall`);
    return { result, simulatedMs, wallMs };
  };
  return { repo, handle, ended };
}

/** The remote's main after a landing: merged and its box ticked, and the owner's checkout at it. */
function expectLandedOnRemote(repo: string, taskId: string) {
  expect(git(remote, 'show', `main:ROADMAP.md`)).toContain(`- [x] ${taskId}`);
  expect(git(remote, 'show', 'main:src/shared.js')).toBe(ONE.trim());
  expect(subjects(remote).filter((s) => s.startsWith(`${taskId}: Add one`))).toHaveLength(1);
  expect(git(repo, 'rev-parse', 'main')).toBe(git(remote, 'rev-parse', 'main'));
  expect(git(remote, 'branch', '--list', `dex/${taskId}`)).toBe('');
}

describe('landing through pull requests, on the time-skipping server', () => {
  it('waits for a CI that takes 3 hours, reading the checks with a backoff, then merges', async () => {
    const counts = forge.use({ checks: ['build', 'test'], check: (_n, _s, _r, since) => (since >= 3 * HOUR ? 'passed' : 'pending') });
    const { repo, handle, ended } = await startLanding('C1', {});
    // While it waits, `dex status`, the Web UI's details and `dex list` (its phase) say for what.
    let status: RunStatus | undefined;
    await expect.poll(async () => (status = await handle.query<RunStatus>('status').catch(() => undefined))?.current.activity, { timeout: 30_000, interval: 100 })
      .toBe('waiting for CI on PR #1: build pending, test pending');
    expect(status!.current).toMatchObject({ taskId: 'C1', phase: 'CI of PR #1' });
    expect(renderLiveStatus(handle.workflowId, status!, { startTime: new Date() })).toContain('  C1       running          PR #1 build pending, test pending · https://forge.test/acme/app/pull/1');
    expect(runDetails(status!, handle.workflowId)).toContain('C1 · CI of PR #1 · waiting for CI on PR #1: build pending, test pending');
    // A description is a list entry and more (its `raw` differs): what `dex list` reads of it is there.
    const row = runRow((await handle.describe()) as unknown as WorkflowExecutionInfo);
    expect(renderRunList([row])).toContain('in CI of PR #1');
    const { result, simulatedMs, wallMs } = await ended();
    expect(result.tasks[0]).toMatchObject({ id: 'C1', state: 'completed', pullRequest: { number: 1, checks: [{ name: 'build', state: 'passed' }, { name: 'test', state: 'passed' }] } });
    expect(simulatedMs).toBeGreaterThanOrEqual(3 * HOUR);
    expect(wallMs).toBeLessThan(60_000);
    // 30 s doubling to 10 min: some twenty reads in 3 hours, not one every 30 s (360).
    expect(counts.reads).toBeGreaterThan(15);
    expect(counts.reads).toBeLessThan(40);
    expect([counts.created, counts.merges]).toEqual([1, 1]);
    expectLandedOnRemote(repo, 'C1');
  }, 120_000);

  it('with profile review, waits a day at the merge gate once green, and merges on approve', async () => {
    const counts = forge.use({ checks: ['build'], check: () => 'passed' });
    const { repo, handle, ended } = await startLanding('R1', { profile: 'review' });
    const waiting = await waitForGate<RunStatus>(handle, { gate: 'merge', taskId: 'R1' });
    expect(waiting.waitingFor?.reason).toMatch(/^PR #1 is green \(https:\/\/forge\.test\/acme\/app\/pull\/1\): approve merges it/);
    await dex.env.sleep('1 day');
    const still = await handle.query<RunStatus>('status');
    expect(still.waitingFor).toMatchObject({ gate: 'merge', taskId: 'R1' });
    expect(counts.merges).toBe(0);
    await handle.executeUpdate(decideUpdate, { args: [{ action: 'approve', taskId: 'R1', by: 'test' }] });
    const { result, simulatedMs } = await ended();
    expect(result.tasks[0]).toMatchObject({ id: 'R1', state: 'completed' });
    expect(simulatedMs).toBeGreaterThanOrEqual(24 * HOUR);
    expect(counts.merges).toBe(1);
    expectLandedOnRemote(repo, 'R1');
  }, 120_000);

  it('a review a week after the PR opened revises in seconds: every comment in one revise run, one push, a reply per thread; asked back, the answer resumes it; approved, it merges', async () => {
    const comment = (id: number, path: string, body: string, before: Review['comments'][number]['before'] = [], thread = id) => ({ id, thread, path, line: 1, author: 'ana', body, before });
    const reviews: Review[] = [
      { id: 501, author: 'ana', state: 'changes_requested', body: 'Two things.', comments: [comment(601, 'src/shared.js', 'Also export it as uno.'), comment(602, 'test/one.test.js', 'What about zero?')] },
      { id: 502, author: 'ana', state: 'commented', body: '', comments: [comment(603, 'test/one.test.js', 'Yes, test zero too.', [{ author: 'ana', body: 'What about zero?' }, { author: 'dex-bot', body: 'Should zero be tested too, or only one?' }], 602)] },
    ];
    const counts = forge.use({ checks: ['build'], check: () => 'passed', reviews });
    const { repo, handle, ended } = await startLanding('V1', { profile: 'review' });
    await waitForGate<RunStatus>(handle, { gate: 'merge', taskId: 'V1' });
    const firstHead = git(remote, 'rev-parse', 'dex/V1');
    await dex.env.sleep('7 days');
    const review = (reviewId: number, state: Review['state']) => handle.signal(reviewSubmittedSignal, { owner: 'acme', repo: 'app', pr: 1, taskId: 'V1', reviewId, state, author: 'ana' });
    const wall = Date.now();
    await review(501, 'changes_requested');
    await review(501, 'changes_requested'); // redelivered: taken once
    const asked = await waitForGate<RunStatus>(handle, { gate: 'answer', taskId: 'V1' });
    console.log(`V1: revised a week-old PR in ${((Date.now() - wall) / 1000).toFixed(1)} s wall`);
    expect(asked.waitingFor?.reason).toMatch(/^PR #1: dex asked in 1 review thread and waits for the answer/);
    const revisePrompt = JSON.stringify(dex.requestsFor('V1').find((r) => r.headers['x-dex-phase'] === 'revise')!.body!.messages);
    for (const text of ['[c601] on src/shared.js:1', 'Also export it as uno.', '[c602] on test/one.test.js:1', 'What about zero?']) expect(revisePrompt).toContain(text);
    // One push for the review: the branch moved once, by the revise run's commit, which the reply names.
    const revised = git(remote, 'rev-parse', 'dex/V1');
    expect(git(remote, 'rev-list', '--count', `${firstHead}..${revised}`)).toBe('1');
    expect(counts.replies.map((r) => r.thread)).toEqual([601, 602]);
    expect(counts.replies[0].body).toContain(`added uno beside one\n\n_dex, in ${revised.slice(0, 7)}._`);
    expect(counts.replies[1].body).toContain('Should zero be tested too, or only one?\n\n_dex asks before it changes this');
    await review(502, 'commented');
    await waitForGate<RunStatus>(handle, { gate: 'merge', taskId: 'V1' });
    expect(counts.replies.map((r) => r.thread)).toEqual([601, 602, 602]);
    expect(git(remote, 'show', 'dex/V1:test/zero.test.js')).toContain("'zero'");
    const revisedTwice = git(remote, 'rev-parse', 'dex/V1');
    expect(counts.merges).toBe(0);
    await review(503, 'approved');
    const { result, simulatedMs } = await ended();
    expect(result.tasks[0]).toMatchObject({ id: 'V1', state: 'completed' });
    expect(simulatedMs).toBeGreaterThanOrEqual(7 * 24 * HOUR);
    expect(counts.merges).toBe(1);
    expect(git(remote, 'show', 'main:src/shared.js')).toContain('exports.uno');
    // dex's status on the head said what it did at each step, and ends green.
    const said = counts.statuses.map((st) => `${st.state}: ${st.description}`);
    expect(said).toEqual(expect.arrayContaining(['pending: waiting for CI', 'pending: green: waiting for you to approve the merge', "pending: revising after ana's review"]));
    expect(said.find((d) => d.startsWith('pending: waiting for you (answer): PR #1: dex asked in 1 review thread'))).toBeDefined();
    expect(counts.statuses.at(-1)).toEqual({ sha: revisedTwice, state: 'success', description: 'merged' });
    expect(git(repo, 'rev-parse', 'main')).toBe(git(remote, 'rev-parse', 'main'));
  }, 180_000);

  it('re-runs a failed check once; passing then, it is recorded flaky and the task lands with no fix-ci run', async () => {
    const counts = forge.use({ checks: ['build', 'test'], check: (name, _s, run) => (name === 'test' && run === 0 ? 'failed' : 'passed') });
    const { repo, ended } = await startLanding('F1', {});
    const { result } = await ended();
    expect(result.tasks[0]).toMatchObject({ id: 'F1', state: 'completed', pullRequest: { flaky: ['test'] } });
    expect(counts.reruns).toEqual(['test']);
    expect(counts.logs).toEqual([]);
    // The model was asked for the implement phase alone (its two turns): no fix-ci phase ran.
    expect(dex.requestsFor('F1')).toHaveLength(2);
    expectLandedOnRemote(repo, 'F1');
  }, 120_000);

  it('a merge refused twice because the base moved (405) finalizes onto it, waits 2 and 4 s, and merges the third time', async () => {
    const counts = forge.use({ checks: ['build'], check: () => 'passed', baseMovedTimes: 2 });
    const { repo, ended } = await startLanding('M1', {});
    const { result, simulatedMs } = await ended();
    expect(result.tasks[0]).toMatchObject({ id: 'M1', state: 'completed' });
    expect([counts.merges, counts.baseMoved, counts.created]).toEqual([3, 2, 1]);
    expect(simulatedMs).toBeGreaterThanOrEqual(6_000);
    // Each move was finalized onto (a clean merge, verified, no model call) before the next merge.
    const finalized = subjects(remote, 'main').filter((s) => s.startsWith('dex(M1): finalize: merge origin/main'));
    expect(finalized).toHaveLength(2);
    expect(subjects(remote, 'main')).toEqual(expect.arrayContaining(['other pull request 1', 'other pull request 2']));
    expect(dex.requestsFor('M1')).toHaveLength(2);
    expectLandedOnRemote(repo, 'M1');
  }, 120_000);

  it('a ciChanged signal for the waited branch reads the checks at once; one for another repository or branch is ignored', async () => {
    let done = false;
    const counts = forge.use({ checks: ['build'], check: () => (done ? 'passed' : 'pending') });
    const { handle, ended } = await startLanding('W1', {});
    await expect.poll(async () => (await handle.query<RunStatus>('status').catch(() => undefined))?.current.activity, { timeout: 30_000, interval: 100 }).toMatch(/^waiting for CI/);
    done = true;
    const reads = counts.reads;
    // Time is held: only a signal can make the run read the checks again before its 30 s poll.
    await handle.signal(ciChangedSignal, { owner: 'acme', repo: 'other', branch: 'dex/W1' });
    await handle.signal(ciChangedSignal, { owner: 'acme', repo: 'app', branch: 'dex/X9' });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(counts.reads).toBe(reads);
    await handle.signal(ciChangedSignal, { owner: 'ACME', repo: 'app', branch: 'dex/W1' });
    await expect.poll(() => counts.reads, { timeout: 10_000, interval: 100 }).toBe(reads + 1);
    const { result, simulatedMs } = await ended();
    expect(result.tasks[0]).toMatchObject({ id: 'W1', state: 'completed' });
    expect(simulatedMs).toBeLessThan(30_000);
  }, 120_000);

  it('a CI that never finishes within ciTimeoutMinutes waits at the merge gate naming the checks; reject leaves the task not landed', async () => {
    forge.use({ checks: ['build', 'test'], check: (name) => (name === 'build' ? 'pending' : 'passed') });
    const { handle } = await startLanding('T1', { ciTimeoutMinutes: 60 });
    await expect.poll(async () => (await handle.query<RunStatus>('status').catch(() => undefined))?.current.activity, { timeout: 30_000, interval: 100 }).toMatch(/^waiting for CI/);
    await dex.env.sleep('61 minutes');
    const waiting = await waitForGate<RunStatus>(handle, { gate: 'merge', taskId: 'T1' });
    expect(waiting.waitingFor?.reason).toBe('CI did not finish on PR #1 within 60 min: build pending');
    // The roadmap's own gate takes a reject that names no task.
    await handle.signal('reject', { by: 'test', reason: 'build is stuck' });
    const failure = await failureOf(handle);
    const [out] = failure.details as [RoadmapResult];
    expect(out.tasks[0]).toMatchObject({ id: 'T1', state: 'failed', error: 'not landed: CI did not finish on PR #1 within 60 min: build pending' });
    expect(git(remote, 'show', 'main:ROADMAP.md')).toContain('- [ ] T1');
  }, 120_000);

  it('a check failing after its re-run goes to a fix-ci run with its log; failing after fixAttempts, the task waits at the merge gate naming it', async () => {
    const counts = forge.use({ checks: ['build', 'test'], check: (name) => (name === 'test' ? 'failed' : 'passed') });
    const { handle } = await startLanding('X1', { fixAttempts: 1 });
    // Time moves on a minute at a time (the run's polls), until the run waits at the gate.
    const status = () => handle.query<RunStatus>('status').catch(() => undefined);
    let waiting = await status();
    for (let i = 0; i < 60 && waiting?.waitingFor?.gate !== 'merge'; i++) {
      await dex.env.sleep('1 minute');
      waiting = await status();
    }
    expect(waiting?.waitingFor?.reason).toBe('CI failed on PR #1 after 1 fix-ci run: test');
    // Re-run once on each head (the first, then the fix's), its log read for the fix-ci run once.
    expect(counts.reruns).toEqual(['test', 'test']);
    expect(counts.logs).toEqual(['test']);
    const fixPrompt = JSON.stringify(dex.requestsFor('X1').find((r) => r.headers['x-dex-phase'] === 'fix-ci')!.body!.messages);
    expect(fixPrompt).toContain('CI failed on PR #1');
    expect(fixPrompt).toContain('# AssertionError: expected 2, got 3');
    expect(git(remote, 'show', 'dex/X1:src/fix.js')).toBe('exports.fix = 1;');
    await handle.signal('reject', { by: 'test', reason: 'look at it myself' });
    const [out] = (await failureOf(handle)).details as [RoadmapResult];
    expect(out.tasks[0]).toMatchObject({ id: 'X1', state: 'failed', error: 'not landed: CI failed on PR #1 after 1 fix-ci run: test' });
    expect(counts.merges).toBe(0);
  }, 120_000);
});

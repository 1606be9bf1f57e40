import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RoadmapResult } from '../../../core/roadmap/roadmap-types';
import { completionTurn, inPhase, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment, waitForGate } from '../../support/env/dex-environment';
import { checkoutFile, roadmapRepo, startRoadmap, subjects } from '../../support/plans/roadmap-fixture';
import { bareRemote, movedOnce } from '../../support/plans/landing-fixture';

const ONE = "exports.one = () => 1;\n";
const TWO = "exports.two = () => 2;\n";
const BOTH = "exports.one = () => 1;\nexports.two = () => 2;\n";
const testOf = (name: string, value: number) =>
  `const test = require('node:test');\nconst assert = require('node:assert');\nconst shared = require('../src/shared');\ntest('${name}', () => assert.strictEqual(shared.${name}(), ${value}));\n`;

/** A task that writes its own version of src/shared.js, and a test of its function. */
const writeShared = (task: string, content: string, name: string, value: number) => [
  toolTurn(task, ['write_file', { path: 'src/shared.js', content }], ['write_file', { path: `test/${name}.test.js`, content: testOf(name, value) }]),
  completionTurn(task, { status: 'complete', summary: `added ${name}` }),
];

/** Whichever task lands second resolves the conflict the same way: both functions kept. */
const resolve = (task: string) =>
  inPhase('finalize', [
    toolTurn(task, ['read_file', { path: 'src/shared.js' }]),
    toolTurn(task, ['write_file', { path: 'src/shared.js', content: BOTH }]),
    completionTurn(task, { status: 'complete', summary: 'kept both functions' }),
  ]);

/** A finalize that says it is done without resolving anything: verify fails on the markers, and then no answer is left. */
const giveUp = (task: string) => inPhase('finalize', [completionTurn(task, { status: 'complete', summary: 'merged' })]);
/** The rework, implement on the merged tree, that resolves it. */
const rework = (task: string) => inPhase('rework', resolve(task));

/** A task that writes a note of its own: nothing for the others to conflict with. */
const writeNote = (task: string) => [
  toolTurn(task, ['write_file', { path: `notes/${task}.md`, content: `# ${task}\n` }]),
  completionTurn(task, { status: 'complete', summary: `wrote notes/${task}.md` }),
];

const dex = useDexEnvironment({
  server: 'dev',
  cassette: [
    ...writeShared('L1', ONE, 'one', 1), ...writeShared('L2', TWO, 'two', 2), ...resolve('L1'), ...resolve('L2'), ...writeShared('P1', ONE, 'one', 1),
    ...writeShared('W1', ONE, 'one', 1), ...writeShared('W2', TWO, 'two', 2), ...giveUp('W1'), ...giveUp('W2'), ...rework('W1'), ...rework('W2'),
    ...writeNote('T1'), ...writeNote('T2'), ...writeNote('T10'),
  ],
  queue: 'dex-it-landing',
});

const git = (repo: string, ...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });

/** Every DexCostUsd the run's history upserted, in order. */
async function costsShown(handle: { fetchHistory(): Promise<{ events?: unknown[] | null }> }): Promise<number[]> {
  type Upsert = { upsertWorkflowSearchAttributesEventAttributes?: { searchAttributes?: { indexedFields?: Record<string, { data?: Uint8Array }> } } };
  const events = ((await handle.fetchHistory()).events ?? []) as Upsert[];
  return events.flatMap((e) => {
    const cost = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.DexCostUsd?.data;
    return cost ? [JSON.parse(Buffer.from(cost).toString('utf8')) as number] : [];
  });
}

/** Runs `node --test` on every landing commit of main, each in a worktree of its own. */
function verifyEachLanding(repo: string): string[] {
  const landings = git(repo, 'log', '--first-parent', '--reverse', '--format=%H %s', 'main').split('\n').filter((l) => l.includes(' dex: land '));
  for (const line of landings) {
    const at = join(mkdtempSync(join(tmpdir(), 'dex-landed-')), 'tree');
    git(repo, 'worktree', 'add', '--detach', at, line.split(' ')[0]);
    execFileSync('node', ['--test'], { cwd: at, stdio: 'ignore' });
  }
  return landings;
}

describe('finalize before landing, on a real dev server', () => {
  it('merges the moved base into the second branch, lets the model resolve the conflict, re-verifies and lands both', async () => {
    const repo = roadmapRepo('- [ ] L1: Add one to src/shared.js\n- [ ] L2: Add two to src/shared.js\n', 'verify: ["node --test"]\nmaxParallel: 2\n');
    const { handle } = await startRoadmap(dex, repo);
    dex.recordHistory(handle.workflowId, 'roadmap-workflow-finalize.json');
    const result = (await handle.result()) as RoadmapResult;
    expect(result.tasks.map((t) => [t.id, t.state])).toEqual([['L1', 'completed'], ['L2', 'completed']]);
    // What the roadmap showed spent never went down: the finalize run's spending added to its task's, never stood for it.
    const shown = await costsShown(handle);
    expect(shown.at(-1)).toBeCloseTo(result.costUsd, 4);
    expect(shown).toEqual([...shown].sort((a, b) => a - b));

    // Exactly one task was finalized by the model: the one that landed second.
    const finalized = ['L1', 'L2'].filter((id) => dex.requestsFor(id).some((r) => r.headers['x-dex-phase'] === 'finalize'));
    expect(finalized).toHaveLength(1);
    const prompt = JSON.stringify(dex.requestsFor(finalized[0]).find((r) => r.headers['x-dex-phase'] === 'finalize')!.body!.messages);
    expect(prompt).toContain('These files conflict and hold conflict markers: src/shared.js');
    expect(prompt).toContain('Finalize phase:');

    // Both changes are on main, the boxes ticked, and main passed verify after each landing.
    expect(checkoutFile(repo, 'src/shared.js')).toBe(BOTH);
    expect(checkoutFile(repo, 'ROADMAP.md')).not.toContain('- [ ]');
    expect(verifyEachLanding(repo)).toHaveLength(2);
    execFileSync('node', ['--test'], { cwd: repo, stdio: 'ignore' });
    const log = subjects(repo);
    expect(log.filter((s) => s.startsWith(`dex(${finalized[0]}): finalize:`))).toHaveLength(1);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });
});

describe('rework after finalize, on a real dev server', () => {
  it('sends the work back to implement on the merged tree when finalize does not resolve it, then lands', async () => {
    const config = 'verify: ["node --test"]\nmaxParallel: 2\nmaxRetries: 1\nland: { finalizeAttempts: 1 }\n';
    const repo = roadmapRepo('- [ ] W1: Add one to src/shared.js\n- [ ] W2: Add two to src/shared.js\n', config);
    const { handle } = await startRoadmap(dex, repo);
    const result = (await handle.result()) as RoadmapResult;
    expect(result.tasks.map((t) => [t.id, t.state])).toEqual([['W1', 'completed'], ['W2', 'completed']]);
    const reworked = ['W1', 'W2'].filter((id) => dex.requestsFor(id).some((r) => r.headers['x-dex-phase'] === 'rework'));
    expect(reworked).toHaveLength(1);
    const prompt = JSON.stringify(dex.requestsFor(reworked[0]).find((r) => r.headers['x-dex-phase'] === 'rework')!.body!.messages);
    expect(prompt).toContain('Rework phase:');
    expect(prompt).toContain('These files conflict and hold conflict markers: src/shared.js');
    expect(checkoutFile(repo, 'src/shared.js')).toBe(BOTH);
    expect(verifyEachLanding(repo)).toHaveLength(2);
  });
});

describe('landing on a remote, on a real dev server', () => {
  it('pushes; when another pusher moved the remote, waits, fetches, re-merges, re-verifies and pushes again', async () => {
    const repo = roadmapRepo('- [ ] P1: Add one to src/shared.js\n', 'verify: ["node --test"]\nland: { remote: origin, branch: main, mode: push }\n');
    const remote = bareRemote(repo);
    // The remote's own pre-receive hook plays the other pusher: at dex's first push it pushes a
    // commit of its own from another clone and refuses dex's, which then no longer fast-forwards.
    const other = movedOnce(remote, 'src/other.js', 'exports.other = () => 3;\n');
    const { handle } = await startRoadmap(dex, repo);
    dex.recordHistory(handle.workflowId, 'roadmap-workflow-remote.json');
    const result = (await handle.result()) as RoadmapResult;
    expect(result.tasks.map((t) => [t.id, t.state])).toEqual([['P1', 'completed']]);

    // The remote holds both: the other pusher's commit and the landing, merged and verified on top of it.
    const remoteLog = git(remote, 'log', '--format=%H %s', 'main');
    expect(remoteLog).toContain(other);
    expect(remoteLog).toContain('dex: land P1: Add one to src/shared.js');
    expect(git(remote, 'show', 'main:src/shared.js')).toBe(ONE);
    expect(git(remote, 'show', 'main:src/other.js')).toContain('exports.other');
    expect(git(remote, 'show', 'main:ROADMAP.md')).toContain('- [x] P1');
    expect(subjects(remote).filter((s) => s.startsWith('dex(P1): finalize: merge origin/main'))).toHaveLength(1);
    // The owner's checkout fast-forwarded to what landed, and passes verify.
    expect(git(repo, 'rev-parse', 'main')).toBe(git(remote, 'rev-parse', 'main'));
    execFileSync('node', ['--test'], { cwd: repo, stdio: 'ignore' });
  });
});

describe('landing order, on a real dev server', () => {
  it('lands tasks that finished while the queue was busy in natural id order: T2 before T10', async () => {
    const repo = roadmapRepo('- [ ] T1: Write one\n- [ ] T10: Write ten\n- [ ] T2: Write two\n', 'verify: ["node --test"]\nverifyBaseline: false\nmaxParallel: 3\n');
    // T2 and T10 wait for their first answer; T1 finishes, and its landing waits at the merge gate
    // on an uncommitted change in the checkout, so the other two finish while the queue is busy.
    const held = ['T2', 'T10'].map((task) => dex.fake.holdRequest({ task }));
    writeFileSync(join(repo, 'src', 'math.js'), `${checkoutFile(repo, 'src/math.js')}// not committed\n`);
    const { handle } = await startRoadmap(dex, repo);
    dex.recordHistory(handle.workflowId, 'roadmap-workflow-landing-order.json');
    const waiting = await waitForGate(handle, { gate: 'merge', taskId: 'T1' });
    expect(waiting.waitingFor?.reason).toContain('uncommitted changes');
    for (const hold of held) hold.release();
    const tasks = waiting.tasks as { id: string; workflowId?: string }[];
    for (const id of ['T2', 'T10']) await dex.client.workflow.getHandle(tasks.find((t) => t.id === id)!.workflowId!).result();

    git(repo, 'checkout', '--', 'src/math.js');
    await handle.signal('approve', { note: 'the checkout is clean again' });
    const result = (await handle.result()) as RoadmapResult;
    expect(result.state).toBe('completed');
    // By characters T10 would have come before T2.
    expect(subjects(repo).filter((s) => s.startsWith('dex: land '))).toEqual(['dex: land T1: Write one', 'dex: land T2: Write two', 'dex: land T10: Write ten']);
  });
});

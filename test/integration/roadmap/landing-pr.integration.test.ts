// Landing through pull requests (land.mode: pr, docs/landing-through-prs.md) on a real dev server,
// against the fake GitHub (test/support/forge/fake-forge.ts: a real bare repository behind git http-backend, real
// checks run in checkouts): a 3-task roadmap, two tasks at once, one merge losing the 405 race, a
// CI check that really fails until a fix-ci phase fixes it; and the review profile's merge gate.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import type { RoadmapInput, RoadmapResult } from '../../../core/roadmap/roadmap-types';
import type { RunStatus } from '../../../core/run/run-types';
import { decideUpdate } from '../../../core/run/definitions';
import { completionTurn, inPhase, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment, waitForGate } from '../../support/env/dex-environment';
import type { FakeCheck, FakeForge } from '../../support/forge/fake-forge';
import { forgePerTest, prRoadmap } from '../../support/forge/pr-roadmap';
import { runDex } from '../../support/env/dex-cli';
import { allText } from '../../support/env/tree-text';

const TOKEN_ENV = 'DEX_IT_FORGE_TOKEN';
const TOKEN = 'forge-token-it-0123456789';
const write = (task: string, path: string, content: string) => [
  toolTurn(task, ['write_file', { path, content }]),
  completionTurn(task, { status: 'complete', summary: `${task}: wrote ${path}` }),
];

const dex = useDexEnvironment({
  server: 'dev',
  cassette: [
    // The agent looks for the forge token: its sandbox has neither the variable nor its value.
    toolTurn('A1', ['run_command', { command: `env; echo "agent sees $${TOKEN_ENV}"` }]),
    ...write('A1', 'src/one.js', 'exports.one = () => 1;\n'),
    // Passes verify (node --test), but leaves a TODO the forge's lint check refuses.
    ...write('A2', 'src/two.js', '// TODO: tidy\nexports.two = () => 2;\n'),
    ...inPhase('fix-ci', write('A2', 'src/two.js', 'exports.two = () => 2;\n')),
    ...write('A3', 'src/three.js', 'exports.three = () => 3;\n'),
    ...write('V1', 'src/five.js', 'exports.five = () => 5;\n'),
  ],
  queue: 'dex-it-landing-pr',
});

const CHECKS: FakeCheck[] = [
  { name: 'test', command: 'node --test' },
  // A CI log that prints the token, as a careless job might: the fix-ci phase gets it redacted.
  { name: 'lint', command: `if grep -rn TODO src; then echo "lint: a TODO is left in src (pushed with ${TOKEN})"; exit 1; fi; echo clean` },
];

const forges = forgePerTest(TOKEN_ENV);
let forge: FakeForge | undefined;

/**
 * A roadmap repository whose `origin` is the fake forge's repository, with `land: { mode: pr }` in
 * its dex.config.yaml (the repository read from the remote's URL, as `dex run` does), started.
 */
async function startLanding(roadmap: string, pr: string[] = [], trust?: 'caFile') {
  forge = await forges.start({ token: TOKEN, checks: CHECKS, seed: false });
  const { repo, checked } = await prRoadmap(dex, forge, roadmap, { env: TOKEN_ENV, value: TOKEN }, pr, trust);
  expect(checked.input.land?.pr).toMatchObject({ owner: forge.owner, repo: forge.repo, profile: pr.length ? 'review' : 'auto', fixAttempts: 2 });
  const handle = await dex.start('roadmapWorkflow', checked.workflowId, { ...checked.input, maxParallel: 2 } satisfies RoadmapInput);
  forges.webhook(forge, handle);
  return { repo, handle };
}

const show = (f: FakeForge, rev: string, path: string) => execFileSync('git', ['show', `${rev}:${path}`], { cwd: f.bare, encoding: 'utf8' });
const log = (f: FakeForge) => execFileSync('git', ['log', '--format=%s', 'main'], { cwd: f.bare, encoding: 'utf8' }).split('\n');
const merges = (f: FakeForge) => f.requests.filter((r) => r.method === 'PUT' && r.url.endsWith('/merge')).length;

describe('landing through pull requests on a real dev server, against a fake GitHub', () => {
  it('lands a 3-task roadmap through PRs: two at once, one after losing the 405 race, one after a fix-ci phase fixed its failing check', async () => {
    const started = Date.now();
    const { repo, handle } = await startLanding('- [ ] A1: Add one\n- [ ] A2: Add two\n- [ ] A3: Add three (depends: A1)\n');
    // The first merge finds the base moved under it: another pull request merged just before.
    forge!.beforeNextMerge(() => forge!.commit('main', { 'other.txt': 'other\n' }, 'another pull request'));
    dex.recordHistory(handle.workflowId, 'roadmap-workflow-pull-requests.json');
    const result = (await handle.result()) as RoadmapResult;
    console.log(`3 tasks through PRs: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(result.tasks.map((t) => [t.id, t.state])).toEqual([['A1', 'completed'], ['A2', 'completed'], ['A3', 'completed']]);
    const f = forge!;

    // Three pull requests, each opened once and merged; a merge more asked for each refusal (the forced race, and
    // any a landing alongside caused: both wait for CI at once, and a strict base refuses the one now behind).
    expect(f.pullsCreated()).toBe(3);
    expect(f.pulls.map((p) => p.state)).toEqual(['closed', 'closed', 'closed']);
    expect(merges(f)).toBeGreaterThanOrEqual(4);
    // A1's and A2's landings ran side by side: both pull requests were open before either merged.
    const [first, second] = ['dex/A1', 'dex/A2'].map((b) => f.pulls.find((p) => p.head === b)!);
    expect(Math.max(Date.parse(first.createdAt), Date.parse(second.createdAt))).toBeLessThan(Math.min(Date.parse(first.mergedAt!), Date.parse(second.mergedAt!)));
    // The remote's main holds every task, the racing pull request, and every box ticked.
    for (const path of ['src/one.js', 'src/two.js', 'src/three.js', 'other.txt']) expect(show(f, 'main', path)).toBeTruthy();
    expect(show(f, 'main', 'ROADMAP.md')).toBe('- [x] A1: Add one\n- [x] A2: Add two\n- [x] A3: Add three (depends: A1)\n');
    expect(log(f).filter((s) => s.startsWith('dex: land '))).toHaveLength(3);
    // The fix-ci phase was told the lint check's log, and its fix is what merged.
    const fixPrompt = JSON.stringify(dex.requestsFor('A2').find((r) => r.headers['x-dex-phase'] === 'fix-ci')!.body!.messages);
    expect(fixPrompt).toContain('lint: a TODO is left in src');
    expect(fixPrompt).toContain('Fix-CI phase');
    expect(show(f, 'main', 'src/two.js')).toBe('exports.two = () => 2;\n');
    expect(result.tasks[1].pullRequest?.flaky).toBeUndefined();
    // lint failed, was re-run once and failed again on A2's first head.
    expect(f.ci.runs.filter((r) => r.name === 'lint' && r.conclusion === 'failure')).toHaveLength(2);
    // A3 started from the merged base: its first commit's parent holds A1's merge.
    const a1 = f.pulls.find((p) => p.head === 'dex/A1')!;
    const a3 = f.pulls.find((p) => p.head === 'dex/A3')!;
    const a3First = execFileSync('git', ['log', '--format=%P', '--grep', 'dex(A3): implement', '--fixed-strings', a3.headSha], { cwd: f.bare, encoding: 'utf8' }).trim().split(' ')[0];
    expect(execFileSync('git', ['merge-base', '--is-ancestor', a1.mergeSha!, a3First], { cwd: f.bare }).toString()).toBe('');
    expect(execFileSync('git', ['rev-parse', 'main'], { cwd: repo, encoding: 'utf8' }).trim()).toBe((await f.head('main')).trim());
    // No branch left behind on the forge.
    expect(execFileSync('git', ['branch', '--list', 'dex/*'], { cwd: f.bare, encoding: 'utf8' })).toBe('');

    // The forge token is nowhere dex keeps or shows anything: not in what the model was sent (the agent's
    // `env`, the CI log given to fix-ci), the store and DEX_HOME, any run's history, `dex status` or `dex log`.
    expect(fixPrompt).toContain('pushed with [REDACTED');
    const ids = [handle.workflowId, ...result.tasks.map((t) => t.workflowId!)];
    const places: Record<string, string> = {
      'model requests': JSON.stringify(dex.fake.requests.map((r) => r.body)),
      'the store and DEX_HOME': allText(dex.worker.dexHome),
      ...Object.fromEntries(await Promise.all(ids.map(async (id) => [`history of ${id}`, await dex.temporal('workflow', 'show', '--workflow-id', id, '-o', 'json')]))),
      'dex status': (await runDex(['status', handle.workflowId, '--json'], { env: dex.cliEnv() })).stdout,
      'dex log': (await runDex(['log', result.tasks[1].workflowId!], { env: dex.cliEnv() })).stdout,
    };
    for (const [place, text] of Object.entries(places)) expect(text.includes(TOKEN), `the forge token in ${place}`).toBe(false);
    expect(places['model requests']).toContain('agent sees');
  }, 180_000);

  it('with profile review, waits at the merge gate once green, and merges on approve (a forge behind its own CA, named by land.pr.caFile)', async () => {
    // The API and git over HTTPS, trusted through the setting alone: no sslCAInfo in the repository's git config.
    const { handle } = await startLanding('- [ ] V1: Add five\n', ['profile: review'], 'caFile');
    const waiting = await waitForGate<RunStatus>(handle, { gate: 'merge', taskId: 'V1' }, { timeoutMs: 90_000 });
    expect(waiting.waitingFor?.reason).toContain('PR #1 is green');
    expect(waiting.tasks?.[0].pullRequest).toMatchObject({ number: 1, checks: [{ name: 'test', state: 'passed' }, { name: 'lint', state: 'passed' }] });
    expect(merges(forge!)).toBe(0);
    await handle.executeUpdate(decideUpdate, { args: [{ action: 'approve', taskId: 'V1', by: 'test' }] });
    const result = (await handle.result()) as RoadmapResult;
    expect(result.tasks[0]).toMatchObject({ id: 'V1', state: 'completed' });
    expect(forge!.pulls[0].state).toBe('closed');
    expect(show(forge!, 'main', 'ROADMAP.md')).toContain('- [x] V1');
  }, 120_000);
});

// A check that fails again where a re-run makes no new id (docs/landing-through-prs.md#a-check-that-fails), on a real
// dev server against the fake GitHub (test/support/forge/fake-forge.ts): a required commit status, which dex cannot
// re-run, fails at once; an app's check run re-run in place (same id, new times) that fails again is told by its
// times. Both get their log read and a fix-ci phase, and merge; neither waits for `ciTimeoutMinutes`.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RoadmapInput, RoadmapResult } from '../../../core/roadmap/roadmap-types';
import { completionTurn, inPhase, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import type { FakeCheck, FakeForge } from '../../support/forge/fake-forge';
import { forgePerTest, prRoadmap } from '../../support/forge/pr-roadmap';

const TOKEN_ENV = 'DEX_IT_FORGE_TOKEN';
const TOKEN = 'forge-token-again-0123456789';
const TODO = '// TODO: tidy\nexports.two = () => 2;\n';
const TIDY = 'exports.two = () => 2;\n';
const write = (task: string, content: string) => [
  toolTurn(task, ['write_file', { path: 'src/two.js', content }]),
  completionTurn(task, { status: 'complete', summary: `${task}: wrote src/two.js` }),
];

const dex = useDexEnvironment({
  server: 'dev',
  // Each task leaves a TODO the forge's lint refuses (verify passes); its fix-ci phase takes it out.
  cassette: [...write('S1', TODO), ...inPhase('fix-ci', write('S1', TIDY)), ...write('P1', TODO), ...inPhase('fix-ci', write('P1', TIDY))],
  queue: 'dex-it-landing-pr-fails-again',
});

const forges = forgePerTest(TOKEN_ENV);

/** Lands a one-task roadmap with the checks `test` (a job) and `lint`; returns the forge and the run's result. */
async function land(taskId: string, lint: FakeCheck): Promise<{ f: FakeForge; result: RoadmapResult }> {
  const f = await forges.start({ token: TOKEN, seed: false, checks: [{ name: 'test', command: 'node --test' }, lint] });
  const { checked } = await prRoadmap(dex, f, `- [ ] ${taskId}: Add two\n`, { env: TOKEN_ENV, value: TOKEN });
  const handle = await dex.start('roadmapWorkflow', checked.workflowId, checked.input satisfies RoadmapInput);
  forges.webhook(f, handle);
  return { f, result: (await handle.result()) as RoadmapResult };
}

const fixPrompt = (taskId: string) => JSON.stringify(dex.requestsFor(taskId).find((r) => r.headers['x-dex-phase'] === 'fix-ci')?.body?.messages ?? null);
const reruns = (f: FakeForge) => f.requests.filter((r) => r.method === 'POST' && /\/(rerun|rerequest)$/.test(r.url));
const onMain = (f: FakeForge, path: string) => execFileSync('git', ['show', `main:${path}`], { cwd: f.bare, encoding: 'utf8' });

describe('a check that fails again without a new id, on a real dev server, against a fake GitHub', () => {
  it('a required commit status that fails is a failure at once: its description goes to a fix-ci phase, and the fix merges', async () => {
    const lint: FakeCheck = { name: 'lint', commitStatus: true, command: 'if grep -rn TODO src; then echo "lint: a TODO is left in src"; exit 1; fi; echo clean' };
    const { f, result } = await land('S1', lint);

    expect(result.tasks[0]).toMatchObject({ id: 'S1', state: 'completed', pullRequest: { number: 1, merged: expect.any(String) } });
    expect(result.tasks[0].pullRequest?.flaky).toBeUndefined();
    // lint reported through the status API only: failing on the task's head, passing on the fix's, never re-run.
    const [first] = f.pushes.filter((p) => p.ref === 'refs/heads/dex/S1').map((p) => p.sha);
    const failing = f.statuses.find((st) => st.context === 'lint' && st.sha === first && st.state === 'failure')!;
    expect(failing.description).toBe('lint: a TODO is left in src');
    expect(f.statuses.some((st) => st.context === 'lint' && st.sha === f.pulls[0].headSha && st.state === 'success')).toBe(true);
    expect(reruns(f)).toEqual([]);
    // The fix-ci phase was told the status: its description and the page it points to.
    const prompt = fixPrompt('S1');
    expect(prompt).toContain('commit status lint: failure: lint: a TODO is left in src');
    expect(prompt).toContain(`/ci/${failing.id}`);
    expect(onMain(f, 'src/two.js')).toBe(TIDY);
    expect(onMain(f, 'ROADMAP.md')).toBe('- [x] S1: Add two\n');
  }, 90_000);

  it('an app check re-run in place that fails again is told by its times: its output is read, fix-ci runs, the fix merges', async () => {
    // An app (not GitHub Actions) that re-runs a re-requested check run in place; each run says which it is.
    const lint: FakeCheck = {
      name: 'lint', app: 'acme-lint', rerunInPlace: true,
      run: async (dir, attempt) => (readFileSync(join(dir, 'src/two.js'), 'utf8').includes('TODO') ? { ok: false, log: `lint run ${attempt}: a TODO is left in src/two.js\n` } : { ok: true, log: 'clean\n' }),
    };
    const { f, result } = await land('P1', lint);

    expect(result.tasks[0]).toMatchObject({ id: 'P1', state: 'completed', pullRequest: { number: 1, merged: expect.any(String) } });
    expect(result.tasks[0].pullRequest?.flaky).toBeUndefined();
    // One check run of lint on the task's head, re-requested once and run again under the same id, failing both times.
    const [first] = f.pushes.filter((p) => p.ref === 'refs/heads/dex/P1').map((p) => p.sha);
    const runs = f.ci.runs.filter((r) => r.name === 'lint' && r.headSha === first);
    expect(runs).toMatchObject([{ attempt: 2, conclusion: 'failure' }]);
    expect(reruns(f).map((r) => r.url)).toEqual([`/api/v3/repos/${f.owner}/${f.repo}/check-runs/${runs[0].id}/rerequest`]);
    // The log the fix-ci phase got is the re-run's output text, read from the check run.
    const prompt = fixPrompt('P1');
    expect(prompt).toContain('lint run 2: a TODO is left in src/two.js');
    expect(prompt).not.toContain('lint run 1');
    expect(f.requests.some((r) => r.method === 'GET' && r.url.endsWith(`/check-runs/${runs[0].id}`))).toBe(true);
    expect(f.ci.runs.filter((r) => r.name === 'lint' && r.headSha === f.pulls[0].headSha)).toMatchObject([{ attempt: 1, conclusion: 'success' }]);
    expect(onMain(f, 'src/two.js')).toBe(TIDY);
    expect(onMain(f, 'ROADMAP.md')).toBe('- [x] P1: Add two\n');
  }, 90_000);
});

// A merge the forge refuses with a conflict (docs/landing-through-prs.md#what-happens-to-a-finished-task), on a real
// dev server against the fake GitHub (test/support/forge/fake-forge.ts): once the task's pull request is open and
// green, another change lands on the base that really conflicts with it; GitHub answers the merge 405 "not
// mergeable" with `mergeable: false`, the finalize phase resolves the conflict on the new base, the merge is
// pushed to the same pull request, CI runs again on it, and it merges.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { RoadmapInput, RoadmapResult } from '../../../core/roadmap/roadmap-types';
import type { RunStatus } from '../../../core/run/run-types';
import { completionTurn, inPhase, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment, waitForGate } from '../../support/env/dex-environment';
import type { FakeForge } from '../../support/forge/fake-forge';
import { conflicts, isAncestor } from '../../support/forge/fake-forge-git';
import { forgePerTest, prRoadmap } from '../../support/forge/pr-roadmap';

const TOKEN_ENV = 'DEX_IT_FORGE_TOKEN';
const TOKEN = 'forge-token-conflict-0123456789';
const ONE = 'exports.one = () => 1;\n';
const TWO = 'exports.two = () => 2;\n';
const BOTH = 'exports.one = () => 1;\nexports.two = () => 2;\n';
const testOf = (name: string, value: number) =>
  `const test = require('node:test');\nconst assert = require('node:assert');\ntest('${name}', () => assert.strictEqual(require('../src/shared').${name}(), ${value}));\n`;

const dex = useDexEnvironment({
  server: 'dev',
  cassette: [
    toolTurn('C1', ['write_file', { path: 'src/shared.js', content: ONE }], ['write_file', { path: 'test/one.test.js', content: testOf('one', 1) }]),
    completionTurn('C1', { status: 'complete', summary: 'added one' }),
    // The finalize phase, on the merge of the new base: it keeps both sides.
    ...inPhase('finalize', [
      toolTurn('C1', ['read_file', { path: 'src/shared.js' }]),
      toolTurn('C1', ['write_file', { path: 'src/shared.js', content: BOTH }]),
      completionTurn('C1', { status: 'complete', summary: 'kept one and two' }),
    ]),
  ],
  queue: 'dex-it-landing-pr-conflict',
});

const forges = forgePerTest(TOKEN_ENV);

const show = (f: FakeForge, rev: string, path: string) => execFileSync('git', ['show', `${rev}:${path}`], { cwd: f.bare, encoding: 'utf8' });
const log = (f: FakeForge, rev: string) => execFileSync('git', ['log', '--format=%s', rev], { cwd: f.bare, encoding: 'utf8' }).split('\n').filter(Boolean);

describe('a pull request the base conflicts with, on a real dev server, against a fake GitHub', () => {
  it('is refused as a conflict, finalized onto the new base by the model, checked again, and merged: one pull request', async () => {
    const started = Date.now();
    const f = await forges.start({ token: TOKEN, seed: false, checks: [{ name: 'test', command: 'node --test' }] });
    const { checked } = await prRoadmap(dex, f, '- [ ] C1: Add one\n', { env: TOKEN_ENV, value: TOKEN });
    // At dex's first merge (the pull request open, its CI green), another pull request has just merged: src/shared.js its own way.
    let other = '';
    f.beforeNextMerge(async () => (other = await f.commit('main', { 'src/shared.js': TWO, 'test/two.test.js': testOf('two', 2) }, 'another pull request')));
    const handle = await dex.start('roadmapWorkflow', checked.workflowId, checked.input satisfies RoadmapInput);
    forges.webhook(f, handle);
    dex.recordHistory(handle.workflowId, 'roadmap-workflow-pr-conflict.json');
    // A conflict not taken to finalize waits at the merge gate: fail at once, saying why.
    const atGate = waitForGate(handle, 'merge', { timeoutMs: 100_000 }).then(
      (s) => Promise.reject(new Error(`C1 waits at the merge gate: ${s.waitingFor?.reason}`)),
      () => new Promise<never>(() => {}),
    );
    const result = (await Promise.race([handle.result(), atGate])) as RoadmapResult;
    const steps = (await handle.query<RunStatus>('status')).recent?.map((s) => s.text) ?? [];
    console.log(`a conflicting merge finalized and merged: ${((Date.now() - started) / 1000).toFixed(1)} s`);

    expect(result.tasks[0]).toMatchObject({ id: 'C1', state: 'completed', pullRequest: { number: 1, merged: expect.any(String) } });
    // One pull request, merged on dex's second merge: the first was refused, its head conflicting with the moved base.
    expect(f.pullsCreated()).toBe(1);
    expect(f.pulls).toHaveLength(1);
    expect(f.pulls[0]).toMatchObject({ state: 'closed', merged: true });
    const merges = f.requests.filter((r) => r.method === 'PUT' && r.url.endsWith('/pulls/1/merge'));
    expect(merges).toHaveLength(2);
    const [first, second] = merges.map((r) => (JSON.parse(r.body) as { sha: string }).sha);
    expect(await conflicts(f.bare, other, first)).toBe(true);
    expect(steps).toContain('C1 PR #1 conflicts with the base (Pull Request is not mergeable); finalize onto it and try again');
    // The second head is the first with the new base merged in by finalize: pushed to the same branch, fast-forward.
    expect(await isAncestor(f.bare, first, second)).toBe(true);
    expect(await isAncestor(f.bare, other, second)).toBe(true);
    expect(f.pulls[0].headSha).toBe(second);
    expect(log(f, second)[0]).toBe('dex(C1): finalize: Add one');
    expect(execFileSync('git', ['rev-list', '--parents', '-n1', second], { cwd: f.bare, encoding: 'utf8' }).trim().split(' ')).toHaveLength(3);
    // The finalize phase got the conflict, and CI ran again on the resolved head.
    const finalize = dex.requestsFor('C1').filter((r) => r.headers['x-dex-phase'] === 'finalize');
    expect(finalize).toHaveLength(3);
    expect(JSON.stringify(finalize[0].body!.messages)).toContain('src/shared.js');
    expect(f.ci.runs.filter((r) => r.headSha === second).map((r) => [r.name, r.conclusion])).toEqual([['test', 'success']]);
    // The remote's main has both changes, the box ticked, and one landing.
    expect(show(f, 'main', 'src/shared.js')).toBe(BOTH);
    for (const path of ['test/one.test.js', 'test/two.test.js']) expect(show(f, 'main', path)).toBeTruthy();
    expect(show(f, 'main', 'ROADMAP.md')).toBe('- [x] C1: Add one\n');
    expect(log(f, 'main')).toContain('another pull request');
    expect(log(f, 'main').filter((s) => s.startsWith('dex: land C1'))).toHaveLength(1);
  }, 120_000);
});

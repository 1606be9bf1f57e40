// A flaky check (docs/landing-through-prs.md#what-happens-to-a-finished-task), on a real dev server against the fake
// GitHub (test/support/forge/fake-forge.ts): the `test` job fails on its first run and passes when dex re-runs it
// (GitHub Actions' `actions/jobs/{id}/rerun`): recorded flaky, not blamed on the change, no fix-ci phase, merged.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { RoadmapInput, RoadmapResult } from '../../../core/roadmap/roadmap-types';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { forgePerTest, prRoadmap } from '../../support/forge/pr-roadmap';

const TOKEN_ENV = 'DEX_IT_FORGE_TOKEN';
const TOKEN = 'forge-token-flaky-0123456789';

const dex = useDexEnvironment({
  server: 'dev',
  cassette: [
    toolTurn('F1', ['write_file', { path: 'src/one.js', content: 'exports.one = () => 1;\n' }]),
    completionTurn('F1', { status: 'complete', summary: 'added one' }),
  ],
  queue: 'dex-it-landing-pr-flaky',
});

const forges = forgePerTest(TOKEN_ENV);

describe('a check that fails once and passes on its re-run, on a real dev server, against a fake GitHub', () => {
  it('is re-run once, recorded flaky, and the pull request merges with no fix-ci phase', async () => {
    // A job that loses a race on its first attempt, as flaky jobs do, and passes when run again on the same commit.
    const flaky = async (_dir: string, attempt: number) => (attempt === 1 ? { ok: false, log: 'not ok 1 - timing\n# timed out after 5000 ms\n' } : { ok: true, log: 'ok 1 - timing\n' });
    const f = await forges.start({ token: TOKEN, seed: false, checks: [{ name: 'test', command: 'node --test' }, { name: 'e2e', run: flaky }] });
    const { checked } = await prRoadmap(dex, f, '- [ ] F1: Add one\n', { env: TOKEN_ENV, value: TOKEN });
    const handle = await dex.start('roadmapWorkflow', checked.workflowId, checked.input satisfies RoadmapInput);
    forges.webhook(f, handle);
    const result = (await handle.result()) as RoadmapResult;

    expect(result.tasks[0]).toMatchObject({ id: 'F1', state: 'completed', pullRequest: { number: 1, merged: expect.any(String), flaky: ['e2e'] } });
    // e2e ran twice on the one head: failed, then passed on the re-run dex asked for through the Actions API.
    const head = f.pulls[0].headSha;
    expect(f.ci.runs.filter((r) => r.name === 'e2e' && r.headSha === head).map((r) => r.conclusion)).toEqual(['failure', 'success']);
    expect(f.requests.filter((r) => r.method === 'POST' && /\/actions\/jobs\/\d+\/rerun$/.test(r.url))).toHaveLength(1);
    // Not blamed on the change: no log read, no fix-ci phase, one push of the task's commit.
    expect(f.requests.some((r) => /\/logs$/.test(r.url))).toBe(false);
    expect(dex.requestsFor('F1').some((r) => r.headers['x-dex-phase'] === 'fix-ci')).toBe(false);
    expect(f.pushesOf(head)).toBe(1);
    expect(f.pulls[0]).toMatchObject({ state: 'closed', merged: true });
    expect(execFileSync('git', ['show', 'main:ROADMAP.md'], { cwd: f.bare, encoding: 'utf8' })).toBe('- [x] F1: Add one\n');
  }, 120_000);
});

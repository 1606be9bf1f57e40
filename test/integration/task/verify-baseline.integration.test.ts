import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { RoadmapResult } from '../../../core/roadmap/roadmap-types';
import type { RunStatus } from '../../../core/run/run-types';
import type { TaskResult } from '../../../core/task/task-types';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { failureOf, useDexEnvironment } from '../../support/env/dex-environment';
import { checkoutFile, roadmapRepo, startRoadmap } from '../../support/plans/roadmap-fixture';

const RED_TEST = "const test = require('node:test');\nconst assert = require('node:assert');\ntest('legacy parser keeps dates', () => assert.strictEqual('2024-01-01', '01/01/2024'));\n";
const FAILURE = 'node --test: legacy parser keeps dates';

const dex = useDexEnvironment({
  server: 'dev',
  cassette: [
    // V1 writes docs only: main's red test is not its to fix.
    toolTurn('V1', ['write_file', { path: 'docs/notes.md', content: '# Notes\n' }]),
    completionTurn('V1', { status: 'complete', summary: 'wrote docs/notes.md' }),
    // V2 breaks a test that was green: a new failure, which still fails verify.
    toolTurn('V2', ['edit_file', { path: 'src/math.js', old_string: 'return a + b;', new_string: 'return a * b;' }]),
    completionTurn('V2', { status: 'complete', summary: 'changed sum' }),
    completionTurn('V2', { status: 'complete', summary: 'still changed' }),
  ],
  queue: 'dex-it-verify-baseline',
});

/** A roadmap repository whose main already fails one test. */
function redRepo(roadmap: string, config = 'verify: ["node --test"]\n'): string {
  const repo = roadmapRepo(roadmap, config);
  writeFileSync(join(repo, 'test', 'legacy.test.js'), RED_TEST);
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'add', '-A'], { cwd: repo });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'main is red'], { cwd: repo });
  return repo;
}

describe('baseline-aware verify', () => {
  it('a roadmap whose main is red: an unrelated task completes and lands, its result listing the pre-existing failure', async () => {
    const repo = redRepo('- [ ] V1: Write docs/notes.md (weight: trivial)\n');
    const { handle } = await startRoadmap(dex, repo);
    const result = (await handle.result()) as RoadmapResult;
    expect(result.state).toBe('completed');
    expect(result.tasks[0]).toMatchObject({ id: 'V1', state: 'completed', preExistingFailures: [FAILURE] });
    expect(checkoutFile(repo, 'docs/notes.md')).toBe('# Notes\n');
    // The model was told, in its first prompt, which failures were there before it.
    const first = JSON.stringify(dex.requestsFor('V1')[0].body!.messages);
    expect(first).toContain('already failed on the commit you started from');
    expect(first).toContain(FAILURE);
  });

  it('a failure the task brings in still fails its verify, told apart from the pre-existing one', async () => {
    const repo = redRepo('- [ ] V2: Change sum (weight: trivial)\n', 'verify: ["node --test"]\nmaxRetries: 0\nmaxIterations: 3\n');
    const { handle } = await startRoadmap(dex, repo);
    const cause = await failureOf(handle);
    const task = (cause.details?.[0] as RoadmapResult).tasks[0];
    expect(task.state).toBe('failed');
    const child = dex.client.workflow.getHandle(task.workflowId!);
    const status = await child.query<RunStatus>('status');
    expect(status.verify?.preExisting).toEqual([FAILURE]);
    expect(status.verify?.newFailures.length).toBeGreaterThan(0);
    expect(status.verify?.newFailures).not.toContain(FAILURE);
    // The task's result keeps the split and what made verify fail, for `dex status` once it ended.
    const ended = await child.result().then(
      () => undefined,
      (err: WorkflowFailedError) => (err.cause as ApplicationFailure).details?.[0] as TaskResult,
    );
    expect(ended?.verify).toEqual(status.verify);
    expect(ended?.verifyCause).toMatch(/^not ok \d+ - /);
    // The third model call got the verify report, which names both kinds.
    const report = JSON.stringify(dex.requestsFor('V2')[2].body!.messages);
    expect(report).toContain('New failures (yours to fix)');
    expect(report).toContain('Pre-existing failures');
  });
});

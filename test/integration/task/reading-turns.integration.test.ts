import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TaskResult } from '../../../core/task/task-types';
import { completionTurn, TEST_MODEL, toolTurn, usageTotals } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { commitsOnBranch, fileAt, sampleRepo, taskInput } from '../../support/env/dev-server-env';
import { modelCallTurns } from '../../support/model/model-call-turns';
import { killDexWorkers, requestsPerCall, resultThroughCrashInCall, spawnDexWorker } from '../../support/env/worker-process';

const TASK = 'T-reading';
const WORKFLOW_ID = `task-math-${TASK}-1`;
const QUEUES = { taskQueue: 'dex-reading', hostQueue: 'dex-reading@host-a' };
// The third turn's model call (reply stored at transcript seq 5), made within the first call's chain, hangs until the worker is killed.
const HANGING_CALL = `${WORKFLOW_ID}/implement/1#5`;

// Three turns that only read, then the fix, then the completion.
const CASSETTE = [
  toolTurn(TASK, ['list_files', { path: '.' }]),
  toolTurn(TASK, ['read_file', { path: 'src/math.js' }]),
  toolTurn(TASK, ['read_file', { path: 'test/math.test.js' }]),
  toolTurn(TASK, ['edit_file', { path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a + b;' }]),
  completionTurn(TASK, { status: 'complete', summary: 'sum adds now' }),
];

// The workers are real `dex worker` processes, started and killed by the test.
const dex = useDexEnvironment({ server: 'dev', cassette: CASSETTE });
const dexHome = mkdtempSync(join(tmpdir(), 'dex-reading-home-'));
const startWorkerProcess = () => spawnDexWorker({ address: dex.env.address, dexHome, ...QUEUES, anthropicUrl: dex.fake.url });

afterAll(() => killDexWorkers());

describe('reading turns in one model call', () => {
  it('are answered by the first call up to the fix; a SIGKILL in the middle asks again only for the turn that had no answer', async () => {
    const repo = sampleRepo();
    const start = () => dex.client.workflow.start('taskWorkflow', { workflowId: WORKFLOW_ID, taskQueue: QUEUES.taskQueue, args: [taskInput(TASK, repo, QUEUES.hostQueue)] });
    const result = (await resultThroughCrashInCall(dex.fake, HANGING_CALL, startWorkerProcess, start)) as TaskResult;
    expect(result.state).toBe('completed');
    expect(commitsOnBranch(repo, result.branch)).toHaveLength(1);
    expect(fileAt(repo, result.commit!, 'src/math.js')).toContain('return a + b;');

    // Each answered turn was asked once; the one in flight when the worker died, twice.
    const perCall = requestsPerCall(dex.fake.requests);
    expect([...perCall.entries()].filter(([, n]) => n > 1)).toEqual([[HANGING_CALL, 2]]);
    expect(perCall.size).toBe(5);
    // Every turn counts once, in tokens and in turns, as five calls would have.
    expect(result.tokens).toEqual(usageTotals(CASSETTE));
    expect(result.turns).toBe(5);

    // Four turns in the first call (three reads, then the fix it leaves to runTurnTools), the completion in a second.
    const events = (await dex.client.workflow.getHandle(WORKFLOW_ID).fetchHistory()).events ?? [];
    const names = events.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name);
    expect(names.filter((n) => n === 'callModel')).toHaveLength(2);
    const summaries = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel').map((e) => Buffer.from(e.userMetadata!.summary!.data!).toString('utf8'));
    expect(summaries).toEqual([`"turn 1 · model ${TEST_MODEL}, then any reading turns"`, `"turn 5 · model ${TEST_MODEL}, then any reading turns"`]);
    expect(names.filter((n) => n === 'runTurnTools')).toHaveLength(1);
    expect(modelCallTurns(events)).toEqual([4, undefined]);
    dex.recordHistory(WORKFLOW_ID, 'task-workflow-reading-turns.json');
  }, 120_000);
});

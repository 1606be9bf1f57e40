import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TaskResult } from '../../../core/task/task-types';
import { completionTurn, toolTurn, usageTotals } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { commitsOnBranch, sampleRepo, taskInput } from '../../support/env/dev-server-env';
import { killDexWorkers, requestsPerCall, resultThroughCrashInCall, spawnDexWorker } from '../../support/env/worker-process';

const TASK = 'T-best-crash';
const WORKFLOW_ID = `task-math-${TASK}-1`;
const QUEUE = 'dex-best-crash';
const HOST_QUEUE = 'dex-best-crash@host-a';
// Attempt B's second model call hangs until the worker is killed; A and C are mid-run too.
const HANGING_CALL = `${WORKFLOW_ID}-B/implement/1#3`;

const fixes = (task: string) => [
  toolTurn(task, ['edit_file', { path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a + b;' }]),
  completionTurn(task, { status: 'complete', summary: 'sum adds' }),
];
const CASSETTE = [...fixes(`${TASK}-A`), ...fixes(`${TASK}-B`), ...fixes(`${TASK}-C`)];

// The workers are real `dex worker` processes, started and killed by the test.
const dex = useDexEnvironment({ server: 'dev', cassette: CASSETTE });
const dexHome = mkdtempSync(join(tmpdir(), 'dex-best-crash-home-'));

afterAll(() => killDexWorkers());

describe('a worker killed with SIGKILL while three attempts run', () => {
  it('is replaced by one that resumes every attempt: none lost, none doubled, one commit each', async () => {
    const repo = sampleRepo();
    const worker = () => spawnDexWorker({ address: dex.env.address, dexHome, taskQueue: QUEUE, hostQueue: HOST_QUEUE, anthropicUrl: dex.fake.url });
    const input = taskInput(TASK, repo, HOST_QUEUE, { attempts: { count: 3 } });
    const start = () => dex.client.workflow.start('taskWorkflow', { workflowId: WORKFLOW_ID, taskQueue: QUEUE, args: [input] });
    const result = (await resultThroughCrashInCall(dex.fake, HANGING_CALL, worker, start)) as TaskResult;

    expect(result.state, result.error).toBe('completed');
    expect(result.attempts!.map((r) => [r.name, r.state])).toEqual([['A', 'completed'], ['B', 'completed'], ['C', 'completed']]);
    for (const row of result.attempts!) expect(commitsOnBranch(repo, row.branch!)).toHaveLength(1);
    const perCall = requestsPerCall(dex.fake.requests);
    // Six calls in all. B's hanging call was made again by the new worker; another attempt's call
    // may have been in flight at the kill too, and is asked again once at most; none is asked thrice.
    expect(perCall.size).toBe(6);
    expect(perCall.get(HANGING_CALL)).toBe(2);
    expect(Math.max(...perCall.values())).toBe(2);
    expect(result.tokens).toEqual(usageTotals(CASSETTE));
  }, 180_000);
});

// client/testing/hand-over.ts: a hand-over the Java time-skipping test server breaks when a query
// reaches the run while its continue-as-new workflow task is in flight, and how the driver gets past it.
import { Client } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainEnd } from '../../../client/testing/hand-over';
import { startTimeSkippingEnvironment } from '../../../client/testing/test-server-start';
import { bundleFixture, quietRuntime } from '../../support/env/dev-server-env';
import { runQuery } from '../../fixtures/hand-over-workflows';

const taskQueue = 'hand-over';
/** How long run 1's continue-as-new task stays started (wall time): room for the query to land in it. */
const TASK_MS = 1_500;

describe('a hand-over the test server breaks', () => {
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  let client: Client;
  beforeAll(async () => {
    quietRuntime();
    env = await startTimeSkippingEnvironment();
    const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
    worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: await bundleFixture('hand-over-workflows.ts'), activities: { pause } });
    running = worker.run();
    // The test environment's own client unlocks time skipping while it waits; this one never does.
    client = new Client({ connection: env.connection });
  }, 60_000);
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
  });

  it('ends with the latest run, and time skips again', async () => {
    const first = await client.workflow.start('handsOverOnce', { taskQueue, workflowId: 'chain-1', args: [1, TASK_MS] });
    // Once run 1's first (and last) workflow task has started, a query is buffered into it.
    while (!(await first.fetchHistory()).events?.some((e) => e.workflowTaskStartedEventAttributes)) await new Promise((r) => setTimeout(r, 20));
    const unanswered = client.withDeadline(Date.now() + 5_000, () => client.workflow.getHandle('chain-1').query(runQuery)).catch(() => 'no answer');

    const end = await chainEnd<string>({ client, env }, 'chain-1');
    expect(end).toEqual({ state: 'completed', result: 'ended in run 2' });
    // The server's part, as reported upstream: run 1 says it continued as new but has no close event,
    // and the query that landed in its task is never answered.
    const broken = await client.workflow.getHandle('chain-1', first.firstExecutionRunId).describe();
    expect(broken.status.name).toBe('CONTINUED_AS_NEW');
    expect(broken.closeTime).toBeUndefined();
    expect(await unanswered).toBe('no answer');
    // Its task's time-skipping lock was given back: an hour passes at once.
    const slept = Date.now();
    await env.sleep('1 hour');
    expect(Date.now() - slept).toBeLessThan(5_000);
  }, 60_000);
});

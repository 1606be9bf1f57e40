/**
 * The end of a chain of runs that continue as new, on the Java time-skipping test server, and the
 * hand-overs that server breaks (docs/testing-your-flows.md#continue-as-new). A query that reaches
 * a run while the workflow task that continues it as new is in flight (the replay driver asks for
 * status every few tens of ms; a busy machine makes the task slow) is buffered as an empty change;
 * at the task's completion that change makes the server schedule one more workflow task after the
 * continued-as-new event, which it refuses ("workflow execution already completed"), so it throws
 * the completion away. It had already started the next run, which goes on as it should; the old
 * run keeps its workflow task started for good, with no close event in its history (while its
 * describe says CONTINUED_AS_NEW), and keeps the one time-skipping lock that task took. Seen in
 * io.temporal:temporal-test-server 1.38.0, the latest (its main branch has the same code).
 *
 * So the end is read from the latest run (the first run's `result()` waits for a close event a broken
 * run never gets), and each broken run's lock is given back, or time stays held and every skip the
 * driver asks for would wait as long on the wall clock.
 */
import type { Client } from '@temporalio/client';
import { runEnd, type RunEnd } from '../run/follow-run';
import type { TimeSkippingHost } from './time-skipping-host';

/** How often the latest run is looked at (wall time). */
const WATCH_MS = 100;

/**
 * How the chain `workflowId` ended: the end of its latest run once that run closes. Meanwhile each
 * earlier run is checked once, and a hand-over the server broke is mended as soon as it is seen, so a
 * skip the driver is waiting in goes on.
 */
export async function chainEnd<R>(host: Pick<TimeSkippingHost, 'client' | 'env'>, workflowId: string): Promise<RunEnd<R>> {
  const checked = new Set<string>();
  let latestRun = '';
  for (;;) {
    const latest = await host.client.workflow.getHandle(workflowId).describe();
    if (latest.runId !== latestRun) {
      latestRun = latest.runId;
      await mendEarlierRuns(host, workflowId, latest.runId, checked);
    }
    // CONTINUED_AS_NEW here is a run whose hand-over is still being written: the next run follows.
    if (latest.status.name !== 'RUNNING' && latest.status.name !== 'CONTINUED_AS_NEW') return runEnd<R>(host.client.workflow.getHandle(workflowId, latest.runId));
    await new Promise((r) => setTimeout(r, WATCH_MS));
  }
}

/**
 * Walks back from `runId` through the runs it continued from, up to one already `checked`, and
 * gives back the time-skipping lock of each the server broke: it says CONTINUED_AS_NEW with no
 * close time. A describe waits for a hand-over being written (it takes the run's lock), so a sound
 * one is never taken for a broken one, and an unlock too many would let time run free.
 */
async function mendEarlierRuns(host: Pick<TimeSkippingHost, 'client' | 'env'>, workflowId: string, runId: string, checked: Set<string>): Promise<void> {
  for (let run = runId; ; ) {
    const earlier = await continuedFrom(host.client, workflowId, run);
    if (!earlier || checked.has(earlier)) return;
    checked.add(earlier);
    const described = await host.client.workflow.getHandle(workflowId, earlier).describe();
    if (described.status.name === 'CONTINUED_AS_NEW' && !described.closeTime) await host.env.connection.testService!.unlockTimeSkipping({});
    run = earlier;
  }
}

/** The run `runId` continued from, from its first event; undefined for a chain's first run. */
async function continuedFrom(client: Client, workflowId: string, runId: string): Promise<string | undefined> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  return history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
}

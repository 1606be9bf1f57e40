/**
 * `npx tsx bench/probes/probe-eager-start.ts [--runs 20]`: how much eager workflow start saves a run that
 * a worker in the starting process serves (client/run/drive-run.ts). One-step runs, one after another,
 * started through a client on the worker's own connection with and without `requestEagerStart`;
 * prints the medians of the wait for the first workflow task (history) and of start-to-result
 * (client). A side experiment, not a bench section (docs/performance.md#eager-start).
 */
import { Client } from '@temporalio/client';
import { firstTaskWaits } from '../history-gaps';
import { runProbe } from './probe-env';
import { quantile, round, timed } from '../stats';

runProbe({ runs: 20 }, async (server, { runs }) => {
  const client = new Client({ connection: server.env.nativeConnection });
  for (const eager of [false, true, false, true]) {
    const waits: number[] = [];
    const walls: number[] = [];
    for (let i = 0; i < runs; i++) {
      const workflowId = `eager-${eager}-${i}-${Date.now()}`;
      const { ms: wall } = await timed(() => client.workflow.execute('pipelineWorkflow', { workflowId, taskQueue: 'probe', requestEagerStart: eager, args: [{ steps: 1, local: false, latencyMs: 0 }] }));
      waits.push(...firstTaskWaits([(await client.workflow.getHandle(workflowId).fetchHistory()).events ?? []]));
      walls.push(wall);
    }
    const median = (xs: number[]) => round(quantile(xs, 0.5), 2);
    console.log(JSON.stringify({ eager, runs, firstTaskWaitMs: median(waits), startToResultMs: median(walls) }));
  }
});

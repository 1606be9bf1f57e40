/**
 * `npx tsx bench/probes/probe-dispatch.ts [--dc key=value ...] [--worker json]`: where a dispatch waits.
 * Runs the bench's 20-step pipeline (regular activities, latency 0) on a fresh dev server started
 * with the given dynamic config, and splits each step into the gaps between its history events
 * (docs/performance.md#where-a-dispatch-waits). A side experiment, not a bench section.
 */
import { gaps, type HistoryEvent as Event } from '../history-gaps';
import { runProbe } from './probe-env';
import { quantile, round, timed } from '../stats';

runProbe({ bare: true }, async (server, { dc, workerOptions, runs }) => {
  const steps = 20;
  const perStep: number[] = [];
  const histories: Event[][] = [];
  for (let i = 0; i < runs + 1; i++) {
    const id = `probe-${i}`;
    const { ms: wall } = await timed(() =>
      server.env.client.workflow.execute('pipelineWorkflow', { workflowId: id, taskQueue: 'probe', args: [{ steps, local: false, latencyMs: 0 }] }),
    );
    if (i === 0) continue; // warm-up
    perStep.push(wall / steps);
    histories.push((await server.env.client.workflow.getHandle(id).fetchHistory()).events ?? []);
  }
  console.log(JSON.stringify({ dc, workerOptions, msPerStep: round(quantile(perStep, 0.5), 1), gapsMs: gaps(histories) }, null, 1));
});

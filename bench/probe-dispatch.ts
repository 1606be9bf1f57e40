/**
 * `npx tsx bench/probe-dispatch.ts [--dc key=value ...] [--worker json]`: where a dispatch waits.
 * Runs the bench's 20-step pipeline (regular activities, latency 0) on a fresh dev server started
 * with the given dynamic config, and splits each step into the gaps between its history events
 * (docs/performance.md#where-a-dispatch-waits). A side experiment, not a bench section.
 */
import { temporal } from '@temporalio/proto';
import { startBenchServer, startBenchWorker } from './dex-env';
import { quantile, round, timed } from './stats';

const { EventType } = temporal.api.enums.v1;
type Event = temporal.api.history.v1.IHistoryEvent;
const ms = (e: Event) => Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;
const kind = (e: Event) => EventType[e.eventType ?? 0].replace('EVENT_TYPE_', '');

/** Median gap between consecutive event kinds (`A→B`), over all steps of all runs. */
function gaps(histories: Event[][]): Record<string, number> {
  const all: Record<string, number[]> = {};
  for (const events of histories) {
    for (let i = 1; i < events.length; i++) (all[`${kind(events[i - 1])}→${kind(events[i])}`] ??= []).push(ms(events[i]) - ms(events[i - 1]));
  }
  return Object.fromEntries(Object.entries(all).filter(([, v]) => v.length >= 5).map(([k, v]) => [k, round(quantile(v, 0.5), 1)]));
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const dc: string[] = [];
  let workerOptions = {};
  let runs = 8;
  const steps = 20;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--dc') dc.push(argv[++i]);
    else if (argv[i] === '--worker') workerOptions = JSON.parse(argv[++i]);
    else if (argv[i] === '--runs') runs = Number(argv[++i]);
  }
  const server = await startBenchServer({ dynamicConfig: dc, defaults: false });
  const worker = await startBenchWorker(server.env, 'probe', { options: workerOptions });
  try {
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
  } finally {
    await worker.stop();
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);

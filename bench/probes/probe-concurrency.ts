/**
 * `npx tsx bench/probes/probe-concurrency.ts [--m 64] [--runs 5] [--pause 1000] [--eager] [--bare] [--dc KEY=VALUE ...] [--arg SERVER-ARG ...] [--worker JSON]`:
 * B2's M concurrent 10-step runs (200 ms model) on a fresh dev server with dex's dynamic config (none
 * with --bare) plus the given one; prints wall / ideal and the CPU of server and worker (medians over
 * the batches after a warm-up) and, to stderr, the last batch's gaps between history events
 * (docs/performance.md#where-many-runs-at-once-wait) and its runs' first workflow tasks' waits
 * (docs/performance.md#first-workflow-tasks). A side experiment, not a bench section.
 */
import { Client } from '@temporalio/client';
import { firstTaskWaits, gaps } from '../history-gaps';
import { runProbe } from './probe-env';
import { cpuSeconds, quantile, round, timed } from '../stats';

const steps = 10;
const latencyMs = 200;

runProbe({ runs: 5 }, async (server, { m, runs, pauseMs, eager, bare, dc, serverArgs, workerOptions }) => {
  const pid = server.pid!;
  const client = eager ? new Client({ connection: server.env.nativeConnection }) : server.env.client;
  const rows: { ratio: number; serverCpu: number; workerCpu: number }[] = [];
  for (let batch = 0; batch <= runs; batch++) {
    const s0 = cpuSeconds(pid);
    const w0 = cpuSeconds(process.pid);
    const { ms } = await timed(() =>
      Promise.all(
        Array.from({ length: m }, (_, i) =>
          client.workflow.execute('pipelineWorkflow', { workflowId: `p-${batch}-${i}`, taskQueue: 'probe', requestEagerStart: eager, args: [{ steps, local: false, latencyMs }] }),
        ),
      ),
    );
    const row = { ratio: round(ms / (steps * latencyMs), 2), serverCpu: round(cpuSeconds(pid) - s0, 2), workerCpu: round(cpuSeconds(process.pid) - w0, 2) };
    console.error(`batch ${batch}${batch === 0 ? ' (warm-up)' : ''}: ${JSON.stringify(row)}`);
    if (batch > 0) rows.push(row);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  const histories = await Promise.all(Array.from({ length: m }, async (_, i) => (await server.env.client.workflow.getHandle(`p-${runs}-${i}`).fetchHistory()).events ?? []));
  for (const [name, q] of [['median', 0.5], ['p90', 0.9], ['max', 1]] as const) console.error(`${name} gaps ms: ${JSON.stringify(gaps(histories, q), null, 1)}`);
  const waits = firstTaskWaits(histories);
  const firstTask = { median: round(quantile(waits, 0.5), 1), p90: round(quantile(waits, 0.9), 1), max: round(quantile(waits, 1), 1) };
  const median = (k: keyof (typeof rows)[number]) => round(quantile(rows.map((x) => x[k]), 0.5), 2);
  console.log(JSON.stringify({ m, eager, bare, dc, serverArgs, workerOptions, ratio: median('ratio'), serverCpu: median('serverCpu'), workerCpu: median('workerCpu'), firstTaskWaitMs: firstTask }));
});

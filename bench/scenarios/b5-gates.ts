import type { BenchServer } from '../dex-env';
import { startBenchWorker, type BenchWorker } from '../dex-env';
import type { BenchParams } from '../params';
import { mib, nowMs, round, summarize, until, type Summary } from '../stats';
import { waitingQuery } from '../workflows/pipeline-workflow';

/** B5: how fast an approve reaches the next activity, and what parked runs cost the worker. */
export interface B5Result {
  signalToActivityMs: { warm: Summary; afterRestart: Summary };
  parked: { runs: number; rssMiB: number; rssDeltaMiB: number; kibPerRun: number; cachedWorkflows: number; parkSeconds: number }[];
  maxCachedWorkflows: number;
}

/** Resolves with the next step start the worker reports. */
class StepStarts {
  private waiter: (() => void) | undefined;
  readonly onStart = () => this.waiter?.();
  next(): Promise<void> {
    return new Promise((resolve) => (this.waiter = resolve));
  }
}

/** Starts `count` gated runs, 50 at a time. */
async function startParked(server: BenchServer, queue: string, prefix: string, count: number): Promise<void> {
  for (let first = 0; first < count; first += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - first) }, (_, i) =>
        server.env.client.workflow.start('gatedStepWorkflow', { workflowId: `${prefix}-${first + i}`, taskQueue: queue }),
      ),
    );
  }
}

/** Runs B5 on the bench workers: warm and cold approve latency, then RSS with many runs parked. */
export async function runB5(server: BenchServer, params: BenchParams, log: (line: string) => void): Promise<B5Result> {
  const { client } = server.env;
  const starts = new StepStarts();
  const queue = 'bench-b5';
  const latency = async (id: string, restart: () => Promise<void>): Promise<number> => {
    const handle = client.workflow.getHandle(id);
    await until(() => handle.query(waitingQuery));
    await restart();
    const started = starts.next();
    const t0 = nowMs();
    await handle.signal('approve', { by: 'bench' });
    await started;
    const ms = nowMs() - t0;
    await handle.result();
    return ms;
  };

  let worker: BenchWorker = await startBenchWorker(server.env, queue, { onStart: starts.onStart });
  const warm: number[] = [];
  const cold: number[] = [];
  try {
    for (let i = 0; i < params.b5.signalRuns + 1; i++) {
      await client.workflow.start('gatedStepWorkflow', { workflowId: `b5-warm-${i}`, taskQueue: queue });
      const ms = await latency(`b5-warm-${i}`, async () => {});
      if (i > 0) warm.push(ms);
    }
    for (let i = 0; i < params.b5.signalRuns; i++) {
      await client.workflow.start('gatedStepWorkflow', { workflowId: `b5-cold-${i}`, taskQueue: queue });
      // The replacement worker starts with an empty cache: the approve makes it replay the run first.
      cold.push(
        await latency(`b5-cold-${i}`, async () => {
          await worker.stop();
          worker = await startBenchWorker(server.env, queue, { onStart: starts.onStart });
        }),
      );
    }
  } finally {
    await worker.stop();
  }
  const signalToActivityMs = { warm: summarize(warm), afterRestart: summarize(cold) };
  log(`b5 approve → next activity: warm ${round(signalToActivityMs.warm.median, 1)} ms, after a worker restart ${round(signalToActivityMs.afterRestart.median, 1)} ms`);

  const parked: B5Result['parked'] = [];
  let maxCachedWorkflows = 0;
  for (const runs of params.b5.parked) {
    const parkQueue = `bench-b5-park-${runs}`;
    const parkWorker = await startBenchWorker(server.env, parkQueue);
    maxCachedWorkflows = parkWorker.worker.options.maxCachedWorkflows;
    try {
      const before = process.memoryUsage().rss;
      const t0 = nowMs();
      await startParked(server, parkQueue, `b5-park-${runs}`, runs);
      const expected = Math.min(runs, maxCachedWorkflows);
      await until(() => {
        const status = parkWorker.worker.getStatus();
        return status.numCachedWorkflows >= expected && status.numInFlightWorkflowActivations === 0;
      });
      const parkSeconds = round((nowMs() - t0) / 1000, 1);
      const rss = process.memoryUsage().rss;
      const entry = {
        runs,
        rssMiB: mib(rss),
        rssDeltaMiB: mib(rss - before),
        kibPerRun: round((rss - before) / 1024 / runs, 1),
        cachedWorkflows: parkWorker.worker.getStatus().numCachedWorkflows,
        parkSeconds,
      };
      parked.push(entry);
      log(`b5 ${runs} runs parked at a gate: worker RSS ${entry.rssMiB} MiB (+${entry.rssDeltaMiB} MiB, ${entry.kibPerRun} KiB per run), parked in ${parkSeconds} s`);
    } finally {
      await parkWorker.stop();
    }
  }
  return { signalToActivityMs, parked, maxCachedWorkflows };
}

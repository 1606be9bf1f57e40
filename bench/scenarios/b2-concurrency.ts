import { Client } from '@temporalio/client';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plainPipeline } from './b1-overhead';
import type { BenchServer } from '../dex-env';
import { startBenchWorker } from '../dex-env';
import { langGraphPipeline } from '../langgraph-pipeline';
import type { BenchParams } from '../params';
import { cpuSeconds, quantile, round, rssSampler, settled, timed } from '../stats';
import { READING_CHAIN_MS } from '../../workflows/run/policies';

/** One concurrency level: wall time against the latency-bound ideal, memory and CPU. */
export interface B2Row {
  m: number;
  /** dex: the median of its batches. */
  wallMs: Record<'plain' | 'dex' | 'langgraph', number>;
  /** Each counted dex batch's wall time, in the order they ran. */
  dexBatchesMs?: number[];
  /** The warm-up batch before them (not counted): a fresh worker's code is not yet optimized. */
  dexWarmUpMs?: number;
  /** dex wall time / ideal (1 = no orchestration cost visible). */
  dexVsIdeal: number;
  workerPeakRssMiB: number;
  /** CPU per dex batch (their mean). */
  devServerCpuSeconds: number | null;
  workerCpuSeconds: number;
  /** The same runs with their steps chained in one activity, as dex answers reading turns in one model call. */
  reading?: B2Batches & { vsIdeal: number };
}

/** One way of running M runs: its batches, their median and CPU per batch. */
export interface B2Batches {
  medianMs: number;
  batchesMs: number[];
  warmUpMs: number;
  serverCpuSeconds: number | null;
  workerCpuSeconds: number;
}

/** B2: M concurrent pipelines with a slow model. */
export interface B2Result {
  steps: number;
  latencyMs: number;
  idealMs: number;
  rows: B2Row[];
}

/** Runs B2: the same M concurrent 10-step runs as direct calls, through dex, and in LangGraph. */
export async function runB2(server: BenchServer, params: BenchParams, log: (line: string) => void): Promise<B2Result> {
  const { steps, latencyMs } = params.b2;
  const idealMs = steps * latencyMs;
  const queue = 'bench-b2';
  const worker = await startBenchWorker(server.env, queue);
  // Runs start as a dex command starts a run it serves itself (client/run/drive-run.ts): through a client
  // on its worker's connection, eagerly, so the start call's reply carries the first workflow task.
  const starter = new Client({ connection: server.env.nativeConnection });
  const graph = langGraphPipeline(steps, join(mkdtempSync(join(tmpdir(), 'dex-bench-b2-')), 'graph.sqlite'), latencyMs);
  const plain = () => plainPipeline(steps, latencyMs);
  const all = (m: number, run: (i: number) => Promise<unknown>) => timed(() => Promise.all(Array.from({ length: m }, (_, i) => run(i))));
  const rows: B2Row[] = [];
  /** A warm-up batch of M runs, then the counted ones: each step an activity, or steps chained for up to `chainMs`. */
  const dexBatches = async (m: number, name: string, chainMs: number | undefined): Promise<B2Batches> => {
    const rests: number[] = [];
    const dexBatch = async (batch: number | 'warm-up') => {
      // Each batch on a quiet server: a batch is M runs at once, not M plus the last batch's
      // after-work (closing records, queue checkpoints) that the server does once its runs ended.
      if (server.pid) rests.push(await settled(server.pid));
      const args = [{ steps, local: false, latencyMs, ...(chainMs !== undefined ? { chainMs } : {}) }];
      const run = (i: number) => starter.workflow.execute('pipelineWorkflow', { workflowId: `b2-${name}-${m}-${batch}-${i}`, taskQueue: queue, requestEagerStart: true, args });
      return Math.round((await all(m, run)).ms);
    };
    // A warm-up batch first, as a long-running worker is warm: a fresh worker's first 64-run batches
    // took 1.70, 1.64, 1.52, 1.50x of the ideal as its CPU per batch fell 2.9 -> 2.1 s. Then several
    // batches, as B1 takes several runs; they move by about ±0.1x.
    const warmUpMs = await dexBatch('warm-up');
    const serverCpu0 = server.pid ? cpuSeconds(server.pid) : 0;
    const workerCpu0 = cpuSeconds(process.pid);
    const batchesMs: number[] = [];
    for (let batch = 0; batch < params.b2.batches; batch++) batchesMs.push(await dexBatch(batch));
    const perBatch = (seconds: number) => round(seconds / batchesMs.length, 2);
    const done: B2Batches = {
      medianMs: quantile(batchesMs, 0.5),
      batchesMs,
      warmUpMs,
      serverCpuSeconds: server.pid ? perBatch(cpuSeconds(server.pid) - serverCpu0) : null,
      workerCpuSeconds: perBatch(cpuSeconds(process.pid) - workerCpu0),
    };
    log(`b2 M=${String(m).padStart(3)} ${name}: ${done.medianMs} ms (${round(done.medianMs / idealMs, 2)}× ideal ${idealMs} ms; warm-up ${warmUpMs} ms, then batches ${batchesMs.join(', ')} ms, each after ${rests.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s for a quiet server), server CPU ${done.serverCpuSeconds} s, worker ${done.workerCpuSeconds} s a batch`);
    return done;
  };
  try {
    for (const m of params.b2.m) {
      const plainRun = await all(m, plain);
      const graphRun = await all(m, () => graph.run());
      const rss = rssSampler();
      const stepEach = await dexBatches(m, 'step', undefined);
      const reading = await dexBatches(m, 'reading', READING_CHAIN_MS);
      const row: B2Row = {
        m,
        wallMs: { plain: Math.round(plainRun.ms), dex: stepEach.medianMs, langgraph: Math.round(graphRun.ms) },
        dexBatchesMs: stepEach.batchesMs,
        dexWarmUpMs: stepEach.warmUpMs,
        dexVsIdeal: round(stepEach.medianMs / idealMs, 2),
        workerPeakRssMiB: rss.stop(),
        devServerCpuSeconds: stepEach.serverCpuSeconds,
        workerCpuSeconds: stepEach.workerCpuSeconds,
        reading: { ...reading, vsIdeal: round(reading.medianMs / idealMs, 2) },
      };
      rows.push(row);
      log(`b2 M=${String(m).padStart(3)}: langgraph ${row.wallMs.langgraph} ms, plain ${row.wallMs.plain} ms, RSS ${row.workerPeakRssMiB} MiB`);
    }
  } finally {
    await worker.stop();
  }
  return { steps, latencyMs, idealMs, rows };
}

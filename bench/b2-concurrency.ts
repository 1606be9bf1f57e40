import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plainPipeline } from './b1-overhead';
import type { BenchServer } from './dex-env';
import { startBenchWorker } from './dex-env';
import { langGraphPipeline } from './langgraph-pipeline';
import type { BenchParams } from './params';
import { cpuSeconds, round, rssSampler, timed } from './stats';

/** One concurrency level: wall time against the latency-bound ideal, memory and CPU. */
export interface B2Row {
  m: number;
  wallMs: Record<'plain' | 'dex' | 'langgraph', number>;
  /** dex wall time / ideal (1 = no orchestration cost visible). */
  dexVsIdeal: number;
  workerPeakRssMiB: number;
  devServerCpuSeconds: number | null;
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
  const graph = langGraphPipeline(steps, join(mkdtempSync(join(tmpdir(), 'dex-bench-b2-')), 'graph.sqlite'), latencyMs);
  const plain = () => plainPipeline(steps, latencyMs);
  const all = (m: number, run: (i: number) => Promise<unknown>) => timed(() => Promise.all(Array.from({ length: m }, (_, i) => run(i))));
  const rows: B2Row[] = [];
  try {
    for (const m of params.b2.m) {
      const plainRun = await all(m, plain);
      const graphRun = await all(m, () => graph.run());
      const rss = rssSampler();
      const serverCpu0 = server.pid ? cpuSeconds(server.pid) : 0;
      const workerCpu0 = cpuSeconds(process.pid);
      const dexRun = await all(m, (i) =>
        server.env.client.workflow.execute('pipelineWorkflow', {
          workflowId: `b2-${m}-${i}`,
          taskQueue: queue,
          args: [{ steps, local: false, latencyMs }],
        }),
      );
      const row: B2Row = {
        m,
        wallMs: { plain: Math.round(plainRun.ms), dex: Math.round(dexRun.ms), langgraph: Math.round(graphRun.ms) },
        dexVsIdeal: round(dexRun.ms / idealMs, 2),
        workerPeakRssMiB: rss.stop(),
        devServerCpuSeconds: server.pid ? round(cpuSeconds(server.pid) - serverCpu0, 2) : null,
        workerCpuSeconds: round(cpuSeconds(process.pid) - workerCpu0, 2),
      };
      rows.push(row);
      log(`b2 M=${String(m).padStart(2)}: dex ${row.wallMs.dex} ms (${row.dexVsIdeal}× ideal ${idealMs} ms), langgraph ${row.wallMs.langgraph} ms, RSS ${row.workerPeakRssMiB} MiB, server CPU ${row.devServerCpuSeconds} s`);
    }
  } finally {
    await worker.stop();
  }
  return { steps, latencyMs, idealMs, rows };
}

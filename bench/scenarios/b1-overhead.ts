import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeModel, type ModelStepOutput } from '../bench-activities';
import type { BenchServer } from '../dex-env';
import { startBenchWorker } from '../dex-env';
import { B1_SYSTEMS, type B1System, type BenchParams } from '../params';
import { langGraphPipeline } from '../langgraph-pipeline';
import { cpuSeconds, round, summarize, timed, type Summary } from '../stats';


/** One system's B1 numbers: per-step and whole-run milliseconds, per N. */
export interface B1SystemResult {
  perStepMs: Record<string, Summary>;
  runMs: Record<string, Summary>;
  /** dev-server + bench-process (worker and client) CPU milliseconds per step over the timed runs; dex systems only. */
  cpuMsPerStep?: Record<string, number>;
}

/** B1: the time each system adds per pipeline step, for each N. */
export type B1Result = Record<B1System, B1SystemResult> & { warmupRuns: number; note: string };

/** The plain limit: the same steps as direct function calls in one loop. */
export async function plainPipeline(steps: number, latencyMs = 0): Promise<ModelStepOutput> {
  let reply: ModelStepOutput = { text: 'start', tokens: 0 };
  for (let step = 0; step < steps; step++) reply = await fakeModel({ step, prompt: reply.text, latencyMs });
  return reply;
}

/** `warmup` untimed runs, then `runs` timed ones, summarised per run and per step. */
async function measure(steps: number, params: BenchParams, runOnce: () => Promise<unknown>) {
  for (let i = 0; i < params.b1.warmup; i++) await runOnce();
  const runMs: number[] = [];
  for (let i = 0; i < params.b1.runs; i++) runMs.push((await timed(runOnce)).ms);
  return { run: summarize(runMs), perStep: summarize(runMs.map((ms) => ms / steps)) };
}

/** Runs B1 for every system and N. */
export async function runB1(server: BenchServer, params: BenchParams, log: (line: string) => void): Promise<B1Result> {
  const queue = 'bench-b1';
  const worker = await startBenchWorker(server.env, queue);
  const dbDir = mkdtempSync(join(tmpdir(), 'dex-bench-langgraph-'));
  let runId = 0;
  const dexRun = (steps: number, local: boolean) => () =>
    server.env.client.workflow.execute('pipelineWorkflow', {
      workflowId: `b1-${local ? 'local' : 'remote'}-${steps}-${runId++}`,
      taskQueue: queue,
      args: [{ steps, local, latencyMs: 0 }],
    });

  const result = {} as Record<B1System, B1SystemResult>;
  for (const system of B1_SYSTEMS) result[system] = { perStepMs: {}, runMs: {} };
  try {
    for (const steps of params.b1.n) {
      const graph = langGraphPipeline(steps, join(dbDir, `n${steps}.sqlite`));
      const runners: Record<B1System, () => Promise<unknown>> = {
        plain: () => plainPipeline(steps),
        dex: dexRun(steps, false),
        dexLocal: dexRun(steps, true),
        langgraph: () => graph.run(),
      };
      for (const system of B1_SYSTEMS) {
        const cpu = () => (server.pid ? cpuSeconds(server.pid) : 0) + cpuSeconds(process.pid);
        const cpu0 = cpu();
        const { run, perStep } = await measure(steps, params, runners[system]);
        // Warm-up runs are inside the CPU window too, so divide by every run.
        const cpuMs = round((1000 * (cpu() - cpu0)) / ((params.b1.runs + params.b1.warmup) * steps), 2);
        if (system.startsWith('dex')) (result[system].cpuMsPerStep ??= {})[steps] = cpuMs;
        result[system].perStepMs[steps] = perStep;
        result[system].runMs[steps] = run;
        log(`b1 ${system.padEnd(9)} N=${String(steps).padStart(3)}: ${round(perStep.median)} ms/step (p95 ${round(perStep.p95)}), CPU ${cpuMs} ms/step`);
      }
    }
  } finally {
    await worker.stop();
  }
  return {
    ...result,
    warmupRuns: params.b1.warmup,
    note: 'perStepMs = wall time of one whole run (start to result) / N; dex runs start a workflow on the dev server and wait for its result',
  };
}

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { numberedWorkflowId, taskWorkflowIdPrefix } from '../../core/run/ids';
import type { TaskResult } from '../../core/task/task-types';
import { sampleRepo, startTestWorker, taskInput } from '../../test/support/env/dev-server-env';
import { startFakeAnthropic } from '../../test/support/model/fake-anthropic-server';
import type { BenchServer } from '../dex-env';
import type { BenchParams } from '../params';
import { cpuSeconds, quantile, round, timed } from '../stats';
import { taskCassette } from '../task-runs';

/** One model latency: what a taskWorkflow turn costs on top of the model. */
export interface TurnRow {
  latencyMs: number;
  /** The short and the long task's turns at this latency. */
  turns?: [number, number];
  /** Wall time of a task per turn count (prepare, turns, checkpoint, completion). */
  wallMs: Record<string, number>;
  /** (wall of the long task − wall of the short one) / the turns between them: one turn, fixed costs cancelled; the median over `pairs`. */
  perTurnMs: number;
  /** Every pair's per-turn figure, in the order run. */
  perTurnSamplesMs: number[];
  /** perTurnMs − latencyMs: dex's time per turn (two dispatches, the tool's own work, store writes). */
  addedMs: number;
  /** addedMs / latencyMs, in percent; null at latency 0. */
  addedPercent: number | null;
  /** Server + worker CPU ms per turn over both tasks. */
  cpuMsPerTurn: number | null;
}

/** The "real turn" section: actual taskWorkflows (one tool call per turn) against a fake Anthropic API that answers after a fixed latency. */
export interface TurnResult {
  turns: [number, number];
  rows: TurnRow[];
  note: string;
}

/** Runs one task of `turns` turns against a fake with `latencyMs`; returns its wall time. */
async function oneTask(server: BenchServer, latencyMs: number, turns: number, n: number): Promise<number> {
  const taskId = `T-${latencyMs}-${turns}-${n}`;
  const fake = await startFakeAnthropic({ cassette: taskCassette(taskId, turns), latencyMs });
  const worker = await startTestWorker(server.env, { queue: `bench-turn-${n}`, anthropicUrl: fake.url, dexHome: mkdtempSync(join(tmpdir(), 'dex-bench-turn-')) });
  try {
    const input = taskInput(taskId, sampleRepo(), worker.hostQueue, { verify: [], maxIterations: turns + 5 });
    const workflowId = numberedWorkflowId(taskWorkflowIdPrefix('math', taskId), 1);
    const { ms, value } = await timed(
      () => server.env.client.workflow.execute('taskWorkflow', { workflowId, taskQueue: worker.taskQueue, args: [input] }) as Promise<TaskResult>,
    );
    if (value.state !== 'completed' || value.turns !== turns) throw new Error(`turn task ${taskId} ended ${value.state} after ${value.turns} turns`);
    return ms;
  } finally {
    await worker.stop();
    await fake.close();
  }
}

/** Runs the section: for each latency, a short and a long task; the difference is per-turn cost. */
export async function runTurns(server: BenchServer, params: BenchParams, log: (line: string) => void): Promise<TurnResult> {
  const [short, longAtSpeed] = params.turn.turns;
  const rows: TurnRow[] = [];
  let n = 0;
  await oneTask(server, 0, short, n++); // warm-up: bundles the workflows, opens the stores
  for (const latencyMs of params.turn.latenciesMs) {
    // One 3-and-8-turn pair's difference moved by ±10 ms a turn from run to run (36-76 ms over five pairs); at
    // latency 0 (the target's figure) the long task is longer, which divides a task's noise by more turns, and the
    // median of several pairs is taken. The slower rows, where the model's wait dominates, run one pair each.
    const pairs = latencyMs === 0 ? params.turn.pairsAtZero : 1;
    const long = latencyMs === 0 ? params.turn.longAtZero : longAtSpeed;
    const cpu0 = server.pid ? cpuSeconds(server.pid) + cpuSeconds(process.pid) : null;
    const samples: number[] = [];
    let a = 0;
    let b = 0;
    for (let i = 0; i < pairs; i++) {
      a = await oneTask(server, latencyMs, short, n++);
      b = await oneTask(server, latencyMs, long, n++);
      samples.push((b - a) / (long - short));
    }
    const cpu = cpu0 === null ? null : cpuSeconds(server.pid!) + cpuSeconds(process.pid) - cpu0;
    const perTurnMs = quantile(samples, 0.5);
    const addedMs = perTurnMs - latencyMs;
    rows.push({
      latencyMs,
      turns: [short, long],
      wallMs: { [short]: Math.round(a), [long]: Math.round(b) },
      perTurnMs: round(perTurnMs, 1),
      perTurnSamplesMs: samples.map((s) => round(s, 1)),
      addedMs: round(addedMs, 1),
      addedPercent: latencyMs ? round((100 * addedMs) / latencyMs, 2) : null,
      cpuMsPerTurn: cpu === null ? null : round((1000 * cpu) / (pairs * (short + long)), 1),
    });
    log(`turn latency ${latencyMs} ms: ${round(perTurnMs, 1)} ms per turn (median of ${pairs}: ${samples.map((s) => round(s, 1)).join(', ')}), dex adds ${round(addedMs, 1)} ms`);
  }
  return {
    turns: [short, longAtSpeed],
    rows,
    note: 'each turn: one callModel (HTTP to the fake, stored) and one runTurnTools (one write_file in the worktree; runTool before); the worker and its in-process client run in the bench process',
  };
}

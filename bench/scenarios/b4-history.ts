import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { numberedWorkflowId, taskWorkflowIdPrefix } from '../../core/run/ids';
import type { TaskResult } from '../../core/task/task-types';
import { sampleRepo, startTestWorker, taskInput } from '../../test/support/env/dev-server-env';
import { workflowBundle } from '../../worker/start-worker';
import type { BenchServer } from '../dex-env';
import { startBenchWorker } from '../dex-env';
import type { BenchParams } from '../params';
import { round, timed } from '../stats';
import { historyByActivity, historyBytes, writeTaskCassette } from '../task-runs';
import type { HistoryProbe } from '../workflows/pipeline-workflow';

/** One task size's history. */
export interface B4Task {
  turns: number;
  events: number;
  bytes: number;
  eventsPerTurn: number;
  bytesPerTurn: number;
  wallMs: number;
  byActivity: Record<string, { events: number; bytes: number }>;
}

/** B4: history growth per model turn, where the server suggests continue-as-new, replay time. */
export interface B4Result {
  tasks: B4Task[];
  continueAsNew: HistoryProbe & { taskTurnsAtSuggestion: number; note: string };
  replay: { turns: number; events: number; ms: number };
}

/** Runs B4: real taskWorkflows on replay cassettes, a probe workflow, and a replay of the largest history. */
export async function runB4(server: BenchServer, params: BenchParams, log: (line: string) => void): Promise<B4Result> {
  const { env } = server;
  const dir = mkdtempSync(join(tmpdir(), 'dex-bench-b4-'));
  const worker = await startTestWorker(env, { queue: 'bench-b4' });
  const tasks: B4Task[] = [];
  let largest: { id: string; history: temporal.api.history.v1.IHistory; turns: number; events: number } | undefined;
  try {
    for (const turns of params.b4.turns) {
      const taskId = `B4-${turns}`;
      const workflowId = numberedWorkflowId(taskWorkflowIdPrefix('math', taskId), 1);
      const input = taskInput(taskId, sampleRepo(), worker.hostQueue, {
        llm: { kind: 'replay', path: writeTaskCassette(dir, taskId, turns) },
        verify: [],
        maxIterations: turns + 5,
      });
      const { ms, value: result } = await timed(
        () => env.client.workflow.execute('taskWorkflow', { workflowId, taskQueue: worker.taskQueue, args: [input] }) as Promise<TaskResult>,
      );
      if (result.state !== 'completed' || result.turns !== turns) throw new Error(`B4 task of ${turns} turns ended ${result.state} after ${result.turns}`);
      const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
      const events = history.events?.length ?? 0;
      const bytes = historyBytes(history);
      tasks.push({
        turns,
        events,
        bytes,
        eventsPerTurn: round(events / turns, 1),
        bytesPerTurn: Math.round(bytes / turns),
        wallMs: Math.round(ms),
        byActivity: historyByActivity(history),
      });
      log(`b4 ${turns}-turn task: ${events} events, ${bytes} bytes (${round(events / turns, 1)} events, ${Math.round(bytes / turns)} B per turn)`);
      largest = { id: workflowId, history, turns, events };
    }
  } finally {
    await worker.stop();
  }

  const probeWorker = await startBenchWorker(env, 'bench-b4-probe');
  let probe: HistoryProbe;
  try {
    probe = await env.client.workflow.execute('historyProbeWorkflow', {
      workflowId: 'b4-probe',
      taskQueue: 'bench-b4-probe',
      args: [params.b4.probeMaxSteps],
    });
  } finally {
    await probeWorker.stop();
  }
  const perTurn = tasks[tasks.length - 1].eventsPerTurn;
  log(`b4 continueAsNewSuggested after ${probe.historyLength} events (${probe.historySize} bytes): ~${Math.floor(probe.historyLength / perTurn)} task turns`);

  const bundle = await workflowBundle();
  const replayOnce = () => Worker.runReplayHistory({ workflowBundle: bundle }, largest!.history, largest!.id);
  await replayOnce();
  const { ms } = await timed(replayOnce);
  log(`b4 replay of the ${largest!.turns}-turn history (${largest!.events} events): ${Math.round(ms)} ms`);
  return {
    tasks,
    continueAsNew: {
      ...probe,
      taskTurnsAtSuggestion: Math.floor(probe.historyLength / perTurn),
      note: 'the probe workflow runs one-activity steps until workflowInfo().continueAsNewSuggested; task turns = that history length / taskWorkflow events per turn',
    },
    replay: { turns: largest!.turns, events: largest!.events, ms: Math.round(ms) },
  };
}

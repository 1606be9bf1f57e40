import {
  ApplicationFailure,
  CancelledFailure,
  ChildWorkflowFailure,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { phasesFor } from '../../core/phases';
import type { RoadmapTask } from '../../core/roadmap';
import type { RoadmapInput, RoadmapResult, RunState, RunStatus, TaskInput, TaskResult } from '../../core/types';
import { statusQuery, taskUpdateSignal } from '../run/definitions';
import { roadmapActivities } from './activities';
import { RecentSteps } from '../run/recent-steps';
import { RoadmapBoard } from './board';
import { RunControl } from '../run/run-control';
import type { taskWorkflow } from '../task/workflow';

/**
 * A whole roadmap: tasks in dependency order, independent ones in parallel (at most
 * `maxParallel`) as child `taskWorkflow`s on their own branches and worktrees; finished
 * branches land on the base branch through one serialized queue in id order, each with its
 * box ticked in the landing commit; a conflict waits at the `merge` gate; a failed or
 * rejected task skips its dependents. Continues as new, carrying its state, when history
 * grows large or after `continueAsNewAfterTasks` tasks.
 */
export async function roadmapWorkflow(input: RoadmapInput): Promise<RoadmapResult> {
  const info = workflowInfo();
  const { readRoadmap, mergeTaskBranch } = roadmapActivities(input.taskDefaults.hostQueue);
  const runs = (input.carried?.runs ?? 0) + 1;
  const hash = info.workflowId.split('-').pop();
  const repoName = info.workflowId.replace(/^roadmap-/, '').replace(/-[^-]+$/, '');

  const recent = new RecentSteps();
  const plan = await readRoadmap({ repoPath: input.repoPath, roadmapFile: input.roadmapFile });
  const board = new RoadmapBoard(plan, input.carried?.tasks);
  let runBudget = input.carried?.runBudget ?? input.runBudget;
  let state: RunState = 'running';

  const childId = (taskId: string) => `task-${repoName}-${taskId}-${hash}`;
  const control = new RunControl(undefined, async (signal, payload) => {
    // Approve/reject go to the task that waits (or the one named); pause/resume to all running ones.
    const target = (payload as { taskId?: string }).taskId ?? board.waitingTask()?.taskId;
    const running = board.tasks.filter((t) => t.state === 'running').map((t) => t.id);
    const to = signal === 'approve' || signal === 'reject' ? running.filter((id) => id === target) : running;
    const { taskId: _, ...rest } = payload as Record<string, unknown>;
    for (const id of to) await getExternalWorkflowHandle(childId(id)).signal(signal, rest);
  });
  setHandler(taskUpdateSignal, (update) => {
    const before = board.live.get(update.taskId);
    board.live.set(update.taskId, update);
    if (update.waitingFor && update.waitingFor.gate !== before?.waitingFor?.gate) {
      recent.add(`${update.taskId} waits at gate "${update.waitingFor.gate}"${update.waitingFor.reason ? `: ${update.waitingFor.reason}` : ''}`);
    } else if (update.phase && update.phase !== before?.phase && update.state === 'running') {
      recent.add(`${update.taskId} ${update.phase}`);
    }
  });
  setHandler(statusQuery, (): RunStatus => {
    const waiting = control.waitingFor ?? board.waitingTask()?.waitingFor ?? null;
    const running = board.tasks.find((t) => t.state === 'running');
    const liveState: RunState =
      state !== 'running' ? state : waiting ? (waiting.gate === 'budget' ? 'budget_exceeded' : 'waiting') : control.paused ? 'paused' : 'running';
    return {
      kind: 'roadmap',
      state: liveState,
      waitingFor: waiting,
      current: running ? { taskId: running.id, phase: board.live.get(running.id)?.phase } : {},
      ...board.spent(),
      tasks: board.statusTasks(),
      recent: recent.list(),
      sandbox: input.taskDefaults.sandbox?.mode ?? 'bwrap',
      ...(runBudget ? { budget: runBudget } : {}),
    };
  });

  const childInput = (task: RoadmapTask): TaskInput => {
    const left = runBudget?.usd !== undefined ? Math.max(0, runBudget.usd - board.spent().costUsd) : undefined;
    const usd = [input.taskBudget?.usd, left].filter((v): v is number => v !== undefined);
    return {
      ...input.taskDefaults,
      taskId: task.id,
      title: task.title,
      description: task.description,
      phases: phasesFor(task, input.phasesByWeight),
      type: task.type,
      budget: usd.length || input.taskBudget?.tokens ? { usd: usd.length ? Math.min(...usd) : undefined, tokens: input.taskBudget?.tokens } : undefined,
    };
  };

  type Failure = { kind: 'failed' | 'rejected' | 'cancelled'; message: string; result?: TaskResult };
  const ended: { id: string; result?: TaskResult; failure?: Failure }[] = [];
  const mergeQueue: { id: string; result: TaskResult }[] = [];
  let endedThisRun = 0;

  const start = async (task: RoadmapTask): Promise<void> => {
    const args = childInput(task);
    const handle = await startChild<typeof taskWorkflow>('taskWorkflow', {
      workflowId: childId(task.id),
      args: [args],
      taskQueue: info.taskQueue,
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
    });
    board.update(task.id, { state: 'running', workflowId: handle.workflowId });
    recent.add(`${task.id} started (${args.phases!.join(', ')})`);
    handle.result().then(
      (result) => ended.push({ id: task.id, result }),
      (err: unknown) => {
        const cause = err instanceof ChildWorkflowFailure ? err.cause : err;
        const kind = cause instanceof CancelledFailure ? 'cancelled' : cause instanceof ApplicationFailure && cause.type === 'TaskRejected' ? 'rejected' : 'failed';
        const result = cause instanceof ApplicationFailure ? (cause.details?.[0] as TaskResult | undefined) : undefined;
        ended.push({ id: task.id, failure: { kind, message: cause instanceof Error ? cause.message : String(err), result } });
      },
    );
  };

  const overRunBudget = () => runBudget?.usd !== undefined && board.spent().costUsd >= runBudget.usd;

  while (!board.finished()) {
    // Land finished branches one at a time, the smallest id first.
    mergeQueue.sort((a, b) => (a.id < b.id ? -1 : 1));
    for (let next = mergeQueue.shift(); next; next = mergeQueue.shift()) await land(next.id, next.result);

    for (const e of ended.splice(0)) {
      endedThisRun++;
      const usage = e.result ?? e.failure?.result;
      board.update(e.id, { tokens: usage?.tokens ?? board.get(e.id).tokens, costUsd: usage?.costUsd ?? 0 });
      board.live.delete(e.id);
      if (e.result) mergeQueue.push({ id: e.id, result: e.result });
      else {
        board.fail(e.id, e.failure!.kind, e.failure!.message);
        recent.add(`${e.id} ${e.failure!.kind}: ${e.failure!.message}`);
      }
    }
    if (mergeQueue.length) continue;

    const running = board.tasks.filter((t) => t.state === 'running').length;
    const wantsNewRun = endedThisRun >= input.continueAsNewAfterTasks || workflowInfo().continueAsNewSuggested;
    if (wantsNewRun && running === 0) {
      await continueAsNew<typeof roadmapWorkflow>({ ...input, carried: { tasks: board.tasks, runs, runBudget } });
    }
    if (!wantsNewRun && !control.paused) {
      for (const task of board.ready().slice(0, Math.max(0, input.maxParallel - running))) {
        while (overRunBudget()) {
          const decision = await control.waitAt('budget', {}, { reason: `the run spent $${board.spent().costUsd.toFixed(4)} of $${runBudget!.usd}` });
          if (decision.action === 'reject') {
            state = 'rejected';
            return result('rejected');
          }
          runBudget = { ...runBudget, usd: decision.budgetUsd ?? Infinity };
        }
        await start(task);
      }
    }
    if (board.finished()) break;
    await condition(() => ended.length > 0 || (!control.paused && board.ready().length > 0 && board.tasks.filter((t) => t.state === 'running').length < input.maxParallel && !wantsNewRun));
  }

  const worst = board.tasks.some((t) => t.state === 'failed' || t.state === 'skipped' || t.state === 'cancelled') ? 'failed' : board.tasks.some((t) => t.state === 'rejected') ? 'rejected' : 'completed';
  return result(worst);

  function result(final: RunState): RoadmapResult {
    state = final;
    const out: RoadmapResult = { state: final, tasks: board.tasks, ...board.spent(), runs };
    if (final === 'completed') return out;
    throw ApplicationFailure.create({
      message: `roadmap ${final}: ${board.tasks.filter((t) => t.state !== 'completed').map((t) => `${t.id} ${t.state}`).join(', ')}`,
      type: final === 'rejected' ? 'RoadmapRejected' : 'RoadmapFailed',
      nonRetryable: true,
      details: [out],
    });
  }

  async function land(id: string, taskResult: TaskResult): Promise<void> {
    const task = plan.find((t) => t.id === id)!;
    for (;;) {
      const merged = await mergeTaskBranch({
        repoPath: input.repoPath,
        baseBranch: input.baseBranch,
        branch: taskResult.branch,
        roadmapFile: input.roadmapFile,
        taskId: id,
        title: task.title,
        key: `${info.workflowId}/${id}`,
      });
      if (merged.status === 'merged') {
        board.update(id, { state: 'completed', commit: merged.sha });
        recent.add(`${id} landed on ${input.baseBranch} as ${merged.sha.slice(0, 10)}`);
        return;
      }
      const reason = merged.status === 'conflict' ? `merge conflict in ${merged.files.join(', ')}` : merged.reason;
      const decision = await control.waitAt('merge', {}, { taskId: id, reason });
      if (decision.action === 'reject') {
        board.fail(id, 'failed', `not landed: ${reason}`);
        return;
      }
    }
  }
}

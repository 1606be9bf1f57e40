import { condition, getExternalWorkflowHandle, setHandler, workflowInfo } from '@temporalio/workflow';
import { landingKey } from '../../core/run/ids';
import type { RoadmapInput, RoadmapResult } from '../../core/roadmap/roadmap-types';
import type { RunState } from '../../core/run/run-types';
import type { TaskResult } from '../../core/task/task-types';
import { guardBudget } from '../run/budget-guard';
import { approveSignal, ciChangedSignal, pauseSignal, reviewSubmittedSignal, rejectSignal, resumeSignal, statusQuery, taskUpdateSignal } from '../../core/run/definitions';
import { RunControl } from '../run/run-control';
import { RunLedger } from '../run/run-ledger';
import { roadmapActivities } from './activities';
import { RoadmapBoard } from './board';
import { RoadmapChain } from './chain';
import { RoadmapChildren } from './children';
import { inIdOrder } from './id-order';
import { landTask } from './landing';
import { RunGrants } from './run-grants';
import { recordLanded } from './run-memory';
import { CiWake, onForgeRepository } from './pr/forge';
import { ReviewInbox } from './pr/review-inbox';
import { tellIssue } from './issue-state';
import { totalTokens } from '../../core/run/budget-reservation';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';

/** The signals a roadmap passes on to its tasks, by name. */
const PASSED_ON = { approve: approveSignal, reject: rejectSignal, pause: pauseSignal, resume: resumeSignal } as const;

/**
 * A whole roadmap: tasks in dependency order, independent ones in parallel (at most
 * `maxParallel`) as child `taskWorkflow`s on their own branches and worktrees; finished
 * branches land on the base branch through one serialized queue in the order they finished
 * (those that finished together in id order, T2 before T10), each with its box ticked in the
 * landing commit; a conflict waits at the `merge` gate; a failed or
 * rejected task skips its dependents. Continues as new, carrying its state, when Temporal
 * suggests it, after `continueAsNewAfterTasks` tasks, or once its history is nearly full (./chain.ts).
 */
export async function roadmapWorkflow(input: RoadmapInput): Promise<RoadmapResult> {
  const acts = roadmapActivities(input.taskDefaults.hostQueue);
  const chain = new RoadmapChain(input);
  const runs = chain.runs;
  const onForge = onForgeRepository(input);
  // A run with its tasks in its input (an issue's) has no file to read.
  const plan = input.plan ?? (await acts.readRoadmap({ repoPath: input.repoPath, roadmapFile: input.roadmapFile, ...(onForge.repo ? { ...onForge, baseBranch: input.baseBranch } : {}) }, `read ${input.roadmapFile}`));
  const board = new RoadmapBoard(plan, input.carried?.tasks);
  const children = new RoadmapChildren(input);
  // Approve/reject go to the task that waits (or the one named); pause/resume to every running one.
  const control: RunControl = new RunControl(async () => ledger.publish(), async (signal, payload) => {
    const { taskId: named, ...rest } = payload as Record<string, unknown>;
    const target = (named as string | undefined) ?? board.waitingTask()?.taskId;
    const to = signal === 'approve' || signal === 'reject' ? board.running().filter((id) => id === target) : board.running();
    for (const id of to) await getExternalWorkflowHandle(children.idOf(id)).signal(PASSED_ON[signal], rest as never);
  }, (taskId) => board.decisionTarget(taskId));
  const ledger = new RunLedger('roadmap', control, { spentBy: () => ({ ...board.spent(), turns: 0 }) });
  ledger.budget = input.carried?.runBudget ?? input.runBudget;
  const grants = new RunGrants(ledger, control, (id) => children.idOf(id), board.spent().costUsd, (taskId, spent) => {
    board.noteSpending(taskId, spent);
    ledger.publish();
  });
  setHandler(taskUpdateSignal, (update) => {
    const step = board.noteUpdate(update);
    if (step) ledger.step(step);
    else ledger.publish(); // a task's wait ended, or its spending changed
  });
  // `dex webhook`'s word that a forge's checks changed wakes the wait for them (land.mode: pr).
  const ci = new CiWake();
  setHandler(ciChangedSignal, (change) => ci.notify(change));
  // And its word of a person's review of a landing's pull request, which the landing takes when it is free.
  const reviews = new ReviewInbox();
  setHandler(reviewSubmittedSignal, (review) => {
    const said = reviews.notify(review);
    if (said) ledger.step(said);
  });
  const status = () => {
    const running = board.running()[0];
    // A landing that waits for CI says so where the run is (docs/landing-through-prs.md#what-a-person-sees-while-it-waits).
    const landing = board.tasks.find((t) => t.state === 'running' && t.pullRequest?.waiting);
    const current = landing ? { taskId: landing.id, phase: `CI of PR #${landing.pullRequest!.number}`, activity: landing.pullRequest!.waiting } : running ? { taskId: running, phase: board.phaseOf(running) } : {};
    const sandbox = input.taskDefaults.sandbox?.mode ?? 'bwrap';
    return ledger.status(current, { tasks: board.statusTasks(), sandbox }, control.waitingFor ?? board.waitingTask()?.waitingFor ?? null);
  };
  setHandler(statusQuery, status);
  ledger.attach(status, input.repoName);
  await tellIssue(input, board.tasks, 'running', (text) => ledger.step(text));

  const landingQueue: { id: string; result: TaskResult }[] = [];
  let landingEnded = false;
  // Side by side, landings' finalize and fix-ci runs still go one at a time (each holds the rest of the run budget).
  const oneAtATime = input.land?.mode === 'pr' ? { busy: false } : undefined;
  let failedLanding: unknown;
  let endedThisRun = 0;
  // With `maxTasks` (dex run --max-tasks), the run ends once that many have landed and none runs.
  const limit = input.maxTasks ?? Infinity;
  const atLimit = () => board.taken() >= limit && board.running().length === 0;
  const over = () => board.finished() || atLimit();
  while (!over()) {
    if ((await grants.serve()) === 'rejected') return finish('rejected');
    // Finished branches land one at a time as they finished; those the run heard of together (while it was busy), in id order.
    // Through pull requests they land side by side: each waits for its own CI (docs/landing-through-prs.md).
    landingEnded = false;
    if (failedLanding) throw failedLanding;
    for (const next of inIdOrder(landingQueue.splice(0), (t) => t.id)) {
      if (input.land?.mode === 'pr') void land(next.id, next.result).then(() => void (landingEnded = true), (err: unknown) => void (failedLanding = err));
      else await land(next.id, next.result);
    }
    for (const end of children.takeEnded()) {
      endedThisRun++;
      const ended = 'result' in end ? end.result : end.failure.result;
      board.ended(end.id, ended);
      if (ended) grants.settle(end.id, ended.costUsd);
      if ('result' in end) landingQueue.push(end);
      else {
        board.fail(end.id, end.failure.kind, end.failure.message);
        ledger.step(`${end.id} ${end.failure.kind}: ${end.failure.message}`);
      }
    }
    if (landingQueue.length) continue;
    if (atLimit()) break; // not continue-as-new for a run that is over

    const wantsNewRun = endedThisRun >= input.continueAsNewAfterTasks || workflowInfo().continueAsNewSuggested || chain.full;
    if (wantsNewRun && board.running().length === 0) await chain.handOver(board.tasks, ledger.budget);
    const room = () => Math.min(input.maxParallel - board.running().length, limit - board.taken());
    if (!wantsNewRun && !control.paused) {
      for (const task of board.ready().slice(0, Math.max(0, room()))) {
        // Checked before the budget, so no budget gate waits for a task this run will not start.
        if (!chain.mayStart(board.running().length)) break;
        if ((await guardBudget(ledger, control)) === 'rejected') return finish('rejected');
        const spent = board.spent();
        const phases = await children.start(task, ledger.budget, { costUsd: spent.costUsd, tokens: totalTokens(spent.tokens) });
        board.update(task.id, { state: 'running', workflowId: children.idOf(task.id) });
        ledger.step(`${task.id} started (${phases.join(', ')})`);
      }
    }
    if (over()) break;
    await condition(() => children.anyEnded || grants.anyPending || landingEnded || failedLanding !== undefined || (!control.paused && board.ready().length > 0 && room() > 0 && !wantsNewRun && !chain.full));
  }
  const ended = board.tasks.map((t) => t.state);
  return finish(ended.some((s) => ['failed', 'skipped', 'cancelled'].includes(s)) ? 'failed' : ended.includes('rejected') ? 'rejected' : 'completed');

  /** The run's end: told on the issue it came from, if any, then reported. */
  async function finish(final: RunState): Promise<RoadmapResult> {
    const failed = board.tasks.find((t) => t.state !== 'completed');
    await tellIssue(input, board.tasks, final === 'completed' ? 'completed' : final === 'rejected' ? 'rejected' : 'failed', (text) => ledger.step(text), failed?.error);
    return result(final);
  }

  function result(final: RunState): RoadmapResult {
    // Under --max-tasks the open tasks left are for a later `dex run`: the result names them.
    const notStarted = input.maxTasks !== undefined ? board.notStarted() : [];
    if (notStarted.length) ledger.step(`not started (--max-tasks ${input.maxTasks}): ${notStarted.join(', ')}`);
    ledger.end(final);
    const out: RoadmapResult = { state: final, tasks: board.tasks, ...board.spent(), runs, ...(notStarted.length ? { notStarted } : {}) };
    if (final === 'completed') return out;
    const open = board.tasks.filter((t) => t.state !== 'completed').map((t) => `${t.id} ${t.state}`);
    throw nonRetryable(final === 'rejected' ? FAILURE.RoadmapRejected : FAILURE.RoadmapFailed, `roadmap ${final}: ${open.join(', ')}`, [out]);
  }

  async function land(id: string, taskResult: TaskResult): Promise<void> {
    const step = (text: string) => ledger.step(text);
    const ctx = { input, acts, control, board, grants, key: landingKey(workflowInfo().workflowId, id), workflowId: children.idOf(id), ci, reviews, step, publish: () => ledger.publish(), oneAtATime };
    const landing = await landTask(ctx, plan.find((t) => t.id === id)!, taskResult);
    if (!landing.landed) return board.fail(id, 'failed', landing.reason);
    board.update(id, { state: 'completed', commit: landing.sha });
    await recordLanded(acts, input, plan.find((t) => t.id === id)!, taskResult, children.idOf(id));
    const proposed = board.get(id).proposed;
    ledger.step(proposed ? `${id} proposed as ${proposed.branch} on ${proposed.remote}` : `${id} landed on ${input.baseBranch} as ${landing.sha.slice(0, 10)}`);
  }
}

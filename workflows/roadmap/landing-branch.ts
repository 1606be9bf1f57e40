import { workflowInfo } from '@temporalio/workflow';
import type { RoadmapTask } from '../../core/roadmap/roadmap';
import type { ProposedLanding } from '../../core/roadmap/roadmap-types';
import type { TaskResult } from '../../core/task/task-types';
import { branchActivities } from './activities';
import { finalizeTask } from './finalize-child';
import type { Landing, LandingContext } from './landing-types';
import { forgeCa, onForgeRepository } from './pr/forge';

/** The branch a task is proposed on, on the remote. */
const proposedBranch = (taskId: string): string => `dex/${taskId}`;

/**
 * Proposes a task on `land.remote` instead of landing it (`land.mode: branch`,
 * docs/roadmaps.md#landing-on-a-remote): fetch the target branch; finalize the task's branch onto
 * it when the branch lacks it (so the proposal merges cleanly and passed verify on the merged
 * tree); push the branch as `dex/<taskId>`; write the merge request's description; run the
 * landCommand. Nothing lands on the base and no box is ticked. A failure waits at the `merge` gate.
 */
export async function proposeOnRemote(ctx: LandingContext, task: RoadmapTask, result: TaskResult): Promise<Landing> {
  const { control, board } = ctx;
  const acts = branchActivities(ctx.input.taskDefaults.hostQueue);
  const rounds = { finalize: 0 };
  for (;;) {
    const pushed = await pushFinalized(ctx, task, result, rounds, 'propose');
    let reason: string;
    if ('sha' in pushed) {
      const proposed = await describeAndAnnounce(ctx, task, result, pushed, acts);
      if ('descriptionPath' in proposed) {
        board.update(task.id, { proposed });
        return { landed: true, sha: pushed.sha };
      }
      reason = proposed.reason;
    } else reason = pushed.reason;
    const decision = await control.waitAt('merge', {}, { taskId: task.id, reason });
    if (decision.action === 'reject') return { landed: false, reason: `not proposed: ${reason}` };
  }
}

/**
 * The first half of proposing (branch and pr modes): fetch the target branch, finalize the task's
 * branch onto it when the branch lacks it (so the proposal merges cleanly and passed verify on the
 * merged tree; `rounds.finalize` counts the finalize runs), push it as `dex/<taskId>`, never forced.
 */
export async function pushFinalized(ctx: LandingContext, task: RoadmapTask, result: TaskResult, rounds: { finalize: number }, verb: string): Promise<Pushed | { reason: string }> {
  const { input } = ctx;
  const remote = input.land!.remote!;
  const target = input.land!.branch ?? input.baseBranch;
  // On a person's pull request, the task's commits go onto its branch (a fast-forward: the task starts from it, finalize takes what was pushed since).
  const branch = input.land!.pr?.onto?.head ?? proposedBranch(task.id);
  const acts = branchActivities(input.taskDefaults.hostQueue);
  const at = { repoPath: input.repoPath, remote, branch: target, taskBranch: result.branch, key: ctx.key, ...forgeCa(input.land!.pr), ...onForgeRepository(input) };
  const fetched = await acts.fetchRemoteHead(at, `${verb} ${task.id} · fetch ${remote}/${target}`);
  if (!fetched.contained) {
    const finalized = await finalizeTask(ctx, task, fetched.head, `${remote}/${target}`, ++rounds.finalize);
    if (!finalized.ok) return { reason: finalized.reason };
  }
  const push = { repoPath: input.repoPath, remote, taskBranch: result.branch, proposedBranch: branch, ...forgeCa(input.land!.pr), ...onForgeRepository(input) };
  const pushed = await acts.pushProposal(push, `${verb} ${task.id} · push ${remote} ${branch}`);
  if (pushed.status !== 'pushed') return { reason: pushed.reason };
  return { remote, target, branch, sha: pushed.sha, targetHead: fetched.head };
}

/** A proposal pushed: where, at which commit, finalized onto which head of its target. */
type Pushed = { remote: string; target: string; branch: string; sha: string; targetHead: string };

/** Writes the description of a pushed proposal (in the store and a file on the host). */
export async function describePushed(ctx: LandingContext, task: RoadmapTask, result: TaskResult, p: Pushed): Promise<ProposedLanding> {
  const { board } = ctx;
  const acts = branchActivities(ctx.input.taskDefaults.hostQueue);
  // The board's spending includes the finalize runs' (finalize-child.ts), the task result's does not.
  const { costUsd, tokens, preExistingFailures } = board.get(task.id);
  const text = {
    key: ctx.key, taskId: task.id, title: task.title, summary: result.summary, remote: p.remote, targetBranch: p.target,
    proposedBranch: p.branch, sha: p.sha, targetHead: p.targetHead, preExistingFailures: preExistingFailures ?? result.preExistingFailures, costUsd, tokens,
    ...(result.unverifiedApprovedBy ? { unverifiedApprovedBy: result.unverifiedApprovedBy } : {}),
    ...(result.checks ? { checks: result.checks } : {}),
    // A best-of-N task's attempts (docs/attempts.md); absent for every other task, whose descriptions stay as they were.
    ...(result.attempts?.length && result.chosen ? { attempts: result.attempts, chosen: result.chosen } : {}),
    // An issue's one task fixes it; an issue's roadmap is closed by dex once every task has landed (issue-state.ts).
    ...(ctx.input.issue ? (ctx.board.tasks.length > 1 ? { partOf: ctx.input.issue.number } : { fixes: ctx.input.issue.number }) : {}),
  };
  const verb = ctx.input.land?.mode === 'pr' ? 'land' : 'propose';
  const { descriptionPath } = await acts.describeProposal(text, `${verb} ${task.id} · describe`);
  return { remote: p.remote, branch: p.branch, target: p.target, descriptionPath };
}

/** Writes the description of a pushed proposal, then runs the landCommand with it, if there is one. */
async function describeAndAnnounce(
  ctx: LandingContext,
  task: RoadmapTask,
  result: TaskResult,
  p: Pushed,
  acts: ReturnType<typeof branchActivities>,
): Promise<ProposedLanding | { reason: string }> {
  const { input } = ctx;
  const proposed = await describePushed(ctx, task, result, p);
  const command = input.land?.command;
  if (!command) return proposed;
  const { descriptionPath } = proposed;
  const env = {
    DEX_BRANCH: p.branch, DEX_REMOTE: p.remote, DEX_BASE_BRANCH: p.target, DEX_TITLE: task.title,
    DEX_TASK_ID: task.id, DEX_DESCRIPTION_FILE: descriptionPath, DEX_RUN_ID: workflowInfo().workflowId,
  };
  const ran = await acts.runLandCommand({ key: ctx.key, command, repoPath: input.repoPath, env }, `propose ${task.id} · landCommand`);
  return ran.status === 'ran' ? { ...proposed, commandOutput: ran.lastLine } : { reason: ran.reason };
}

import { ActivityFailure, isCancellation, patched, sleep, workflowInfo } from '@temporalio/workflow';
import { landingComment, type DexStatus } from '../../../core/forge/dex-status';
import { stateMarker } from '../../../core/forge/issue-run';
import { innermostMessage } from '../../../core/run/failure-message';
import type { RoadmapTask } from '../../../core/roadmap/roadmap';
import type { PullRequestRef } from '../../../core/roadmap/pull-request-types';
import type { TaskResult } from '../../../core/task/task-types';
import { describePushed, pushFinalized } from '../landing-branch';
import type { Landing, LandingContext } from '../landing-types';
import { waitForCi } from './ci-wait';
import { fixCi } from './fix-ci-child';
import { forgeActivities, forgeTarget, issueCommentActivities } from './forge';
import { forgetRecordedState, tickMerged } from '../landing-remote';
import { showChecks } from './pr-board';
import { replyInThreads, reviseAfterReview, type Revised } from './revise-child';
import type { ThreadReply } from '../../../core/forge/review';

/** Merges refused because the base moved (GitHub's 405) that are tried again, after 2, 4 and 8 s, each after finalizing onto the new base. */
const MERGE_RETRIES = 3;
/** Fix-CI runs before the task waits at the `merge` gate, when `land.pr` names no number. */
const DEFAULT_FIX_ATTEMPTS = 2;

/**
 * Lands a task through a pull request (`land.mode: pr`, docs/landing-through-prs.md): finalize the
 * task's branch onto the target when it lacks it and push it as `dex/<taskId>`; open the pull
 * request; wait durably for CI. A failed check is re-run once (passing then: flaky, let through);
 * failing again, a `fix-ci` run on the task's branch gets its log, and the fix is pushed and
 * checked again, `fixAttempts` times. Green: profile `auto` merges, `review` waits at the `merge`
 * gate first. A merge refused because the base moved finalizes onto it and tries again (2/4/8 s
 * apart), and one refused because the moved base conflicts with it at once (finalize resolves it); then the box is ticked on the base and the branch deleted. What cannot go on waits at
 * the `merge` gate: approve tries again, reject leaves the task not landed (the pull request open).
 */
export async function landThroughPullRequest(ctx: LandingContext, task: RoadmapTask, result: TaskResult): Promise<Landing> {
  const { input, control } = ctx;
  const pr = input.land!.pr!;
  const target = forgeTarget(pr);
  const forge = forgeActivities(input.taskDefaults.hostQueue);
  const { commentOnIssue: commentOn } = issueCommentActivities(input.taskDefaults.hostQueue);
  const rounds = { finalize: 0 };
  let fixes = 0;
  let moved = 0;
  let conflicts = 0;
  let ref: PullRequestRef | undefined;
  let revisions = 0;
  // A revise run's replies, posted once its commit is pushed; and the threads where dex asked back and waits for an answer.
  let toReply: Revised | undefined;
  let asked: ThreadReply[] = [];
  const reviewed = () => ctx.reviews?.pending(task.id) ?? false;
  // dex's own status on the head says what the landing does (docs/forge-triggers.md#dex-on-the-pull-request);
  // a forge that refuses it is a step, never the landing's end. Runs recorded before it replay without it.
  let head: string | undefined;
  const tell = async (state: DexStatus['state'], description: string) => {
    if (!head || !patched('dex-status-on-the-head')) return;
    const status = { state, description, ...(input.webUi ? { url: input.webUi } : {}) };
    try {
      await forge.setDexStatus({ target, sha: head, status }, `PR · dex status ${state}: ${description}`);
      // And dex's one comment on the pull request, edited in place: the same line, the run, the cost so far, the Web UI.
      const run = workflowInfo().workflowId;
      const body = landingComment(stateMarker(run), { workflowId: run, taskId: task.id, status, costUsd: ctx.board.get(task.id).costUsd, ...(input.webUi ? { webUi: input.webUi } : {}) });
      if (ref) await commentOn({ target, issue: ref.number, run, body }, `PR #${ref.number} · dex's comment: ${description}`);
    } catch (err) {
      if (!(err instanceof ActivityFailure) || isCancellation(err)) throw err;
      ctx.step?.(`${task.id}: could not set the dex status: ${innermostMessage(err)}`);
    }
  };
  // A wait for a person that a review ends too: the next round takes the review (undefined), as a decision to go on would.
  const waitFor = async (gateName: string, reason: string) => {
    await tell('pending', `waiting for you (${gateName}): ${reason}`);
    const decision = await control.waitUnless(gateName, {}, { taskId: task.id, reason }, reviewed);
    if (decision?.action !== 'reject') {
      fixes = 0;
      moved = 0;
      conflicts = 0;
    }
    return decision;
  };
  const gate = async (reason: string): Promise<Landing | undefined> => {
    const decision = await waitFor('merge', reason);
    return decision?.action === 'reject' ? { landed: false, reason: `not landed: ${reason}` } : undefined;
  };
  // The oldest review waiting: one revise run, whose commit the next round pushes (one push per review) before it replies in each thread.
  const revise = async (): Promise<Landing | undefined> => {
    const submitted = ctx.reviews!.next(task.id)!;
    await tell('pending', `revising after ${submitted.author}'s review`);
    const revised = await reviseAfterReview(ctx, task, forge, target, ref!, submitted, revisions + 1);
    if (!revised.ok) return gate(`revise of PR #${ref!.number} failed: ${revised.reason}`);
    if (!revised.revised) return undefined;
    revisions++;
    asked = asked.filter((q) => !revised.revised!.replies.some((r) => r.thread === q.thread));
    toReply = revised.revised;
    return undefined;
  };
  // One round: bring the branch up to date and push it, wait for CI, merge; a Landing ends the landing, undefined goes round again.
  const round = async (): Promise<Landing | undefined> => {
    const pushed = await pushFinalized(ctx, task, result, rounds, 'land');
    if (!('sha' in pushed)) return gate(pushed.reason);
    if (!ref) {
      const { descriptionPath } = await describePushed(ctx, task, result, pushed);
      const title = `${task.id}: ${task.title}`;
      // A person's pull request is found, not opened: its head is the branch pushed to.
      ref = await forge.openPullRequest({ target, head: pushed.branch, base: pr.onto?.base ?? pushed.target, title, descriptionPath }, `land ${task.id} · open a pull request`);
      ctx.step?.(`${task.id} PR #${ref.number} ${pr.onto ? 'taken up' : 'opened'}: ${ref.url}`);
    }
    const name = `PR #${ref.number}`;
    head = pushed.sha;
    await tell('pending', 'waiting for CI');
    if (toReply) {
      asked = [...asked, ...(await replyInThreads(ctx, forge, target, ref, toReply, pushed.sha))];
      toReply = undefined;
    }
    const ci = await waitForCi({
      forge, pr, ref, sha: pushed.sha, wake: ctx.ci!,
      show: (report, waiting, flaky) => showChecks(ctx, task.id, ref!, report, waiting, flaky),
      step: (text) => ctx.step?.(`${task.id} ${text}`),
    });
    // Reviews that came while CI ran (or before) are taken now, in the order they came.
    if (reviewed()) return revise();
    if (ci.kind === 'failed') {
      const failing = ci.failed.map((c) => c.name).join(', ');
      if (fixes < (pr.fixAttempts ?? DEFAULT_FIX_ATTEMPTS)) {
        ctx.step?.(`${task.id} ${name}: ${failing} failed again; fix-ci run ${fixes + 1}`);
        await tell('pending', `fixing CI: ${failing} failed`);
        const fixed = await fixCi(ctx, task, forge, target, ref, pushed.sha, ci.failed, ++fixes);
        if (fixed.ok) return undefined; // push the fix, wait for CI again
        return gate(`fix-ci on ${name} failed: ${fixed.reason}`);
      }
      return gate(`CI failed on ${name} after ${fixes} fix-ci run${fixes === 1 ? '' : 's'}: ${failing}`);
    }
    if (ci.kind === 'timeout') {
      return gate(`CI did not finish on ${name} within ${pr.ciTimeoutMinutes} min: ${ci.pending.join(', ')} pending`);
    }
    if (asked.length) {
      // dex asked back in a thread: the answer there (a review) resumes it; approving goes on without one.
      const decision = await waitFor('answer', `${name}: dex asked in ${asked.length} review thread${asked.length === 1 ? '' : 's'} and waits for the answer (${ref.url})`);
      if (!decision) return undefined;
      if (decision.action === 'reject') return { landed: false, reason: `not landed: ${name} left open: ${decision.reason}` };
      asked = [];
    }
    const approvedBy = () => ctx.reviews?.approvedBy(task.id);
    if (pr.profile === 'review' && !approvedBy()) {
      await tell('pending', 'green: waiting for you to approve the merge');
      const decision = await control.waitUnless('merge', {}, { taskId: task.id, reason: `${name} is green (${ref.url}): approve merges it, reject leaves it open` }, () => reviewed() || !!approvedBy());
      if (!decision && reviewed()) return undefined;
      if (decision?.action === 'reject') return { landed: false, reason: `not landed: ${name} left open: ${decision.reason}` };
    }
    if (approvedBy()) ctx.step?.(`${task.id} ${name} approved by ${approvedBy()} on the forge`);
    const merge = await forge.mergePullRequest({ target, pr: ref.number, sha: pushed.sha, method: pr.mergeMethod ?? 'merge', title: `${task.id}: ${task.title} (#${ref.number})` }, `land ${task.id} · merge ${name}`);
    if (merge.status === 'merged') {
      const sha = await tickMerged(ctx, task, merge.sha);
      ctx.board.update(task.id, { pullRequest: { ...ctx.board.get(task.id).pullRequest!, merged: merge.sha, waiting: undefined } });
      if (!pr.onto) await forge.deletePullBranch({ target, branch: ref.head }, `land ${task.id} · delete ${ref.head}`);
      await forgetRecordedState(ctx, task.id);
      ctx.step?.(`${task.id} ${name} merged as ${merge.sha.slice(0, 10)}`);
      return { landed: true, sha };
    }
    if (merge.status === 'base-moved' && moved < MERGE_RETRIES) {
      ctx.step?.(`${task.id} ${name}: the base moved (${merge.reason}); finalize onto it and try again`);
      // Durable: a worker restart during the wait resumes it, and nobody merges in a tight loop.
      await sleep(2000 * 2 ** moved++);
      return undefined;
    }
    // The base moved with a conflicting change: the next fetch sees it, and finalize resolves it.
    if (merge.status === 'conflict' && conflicts++ < MERGE_RETRIES) {
      ctx.step?.(`${task.id} ${name} conflicts with the base (${merge.reason}); finalize onto it and try again`);
      return undefined;
    }
    const why = merge.status === 'base-moved' ? `merge_failed: the base moved during ${moved + 1} merges of ${name} in a row` : `${name}: ${merge.reason}`;
    return gate(why);
  };
  for (;;) {
    let ended: Landing | undefined;
    try {
      ended = await round();
    } catch (err) {
      // A forge or git call that cannot succeed (a token refused, the forge down for minutes) waits for a person, not the run's end.
      if (!(err instanceof ActivityFailure) || isCancellation(err)) throw err;
      ended = await gate(innermostMessage(err));
    }
    if (ended) {
      await tell(ended.landed ? 'success' : 'failure', ended.landed ? 'merged' : ended.reason);
      return ended;
    }
  }
}

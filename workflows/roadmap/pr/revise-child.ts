import { repliesOf, type ReviewSubmitted, type ThreadReply } from '../../../core/forge/review';
import type { RoadmapTask } from '../../../core/roadmap/roadmap';
import type { ForgeTarget, PullRequestRef } from '../../../core/roadmap/pull-request-types';
import { runOnTaskBranch } from '../finalize-child';
import type { LandingContext } from '../landing-types';
import type { Forge } from './forge';

/** A revise run's answers, replied once its commit is pushed: `round` keeps each reply's marker its own. */
export interface Revised {
  round: number;
  replies: ThreadReply[];
}

/**
 * Takes up a person's review of a task's pull request (docs/forge-triggers.md#reviews-answered-on-the-same-pr):
 * reads every comment of it with its thread, then a child `taskWorkflow` on the task's branch, under its
 * own workflow id, runs one `revise` phase told all of them; it is verified and committed as any phase.
 * Its answer, one line per comment, becomes one reply per thread. A review that asks nothing needs no run.
 */
export async function reviseAfterReview(
  ctx: LandingContext,
  task: RoadmapTask,
  forge: Forge,
  target: ForgeTarget,
  ref: PullRequestRef,
  submitted: ReviewSubmitted,
  round: number,
): Promise<{ ok: true; revised?: Revised } | { ok: false; reason: string }> {
  const name = `PR #${ref.number}`;
  // A request in a comment is a review with its text and no line comments: nothing more to read.
  const review = submitted.request !== undefined
    ? { id: submitted.reviewId, author: submitted.author, state: submitted.state, body: `@dex ${submitted.request}`, comments: [] }
    : await forge.readReview({ target, pr: ref.number, reviewId: submitted.reviewId }, `review · read ${submitted.author}'s review of ${name}`);
  if (!review.comments.length && !review.body.trim()) return { ok: true };
  ctx.step?.(`${task.id} ${name}: ${review.author}'s review (${review.comments.length} comment${review.comments.length === 1 ? '' : 's'}); revise run ${round}`);
  const revise = { pullRequest: `${name} (${ref.url})`, round, review };
  const done = await runOnTaskBranch(ctx, task, { phases: ['revise'], revise }, `revise-${round}`, `revise ${name} after ${review.author}'s review`);
  if (!done.ok) return done;
  return { ok: true, revised: { round, replies: repliesOf(review, done.result.summary ?? '') } };
}

/** Replies in each thread of a revise run, once its commit `sha` is pushed; resolves to the threads where dex asked back. */
export async function replyInThreads(ctx: LandingContext, forge: Forge, target: ForgeTarget, ref: PullRequestRef, revised: Revised, sha: string): Promise<ThreadReply[]> {
  for (const r of revised.replies) {
    // The marker makes a retried reply find the first one instead of posting it twice.
    const marker = `<!-- dex:reply ${ctx.key}/${revised.round}/${r.comment} -->`;
    const signed = r.question ? '_dex asks before it changes this: answer in this thread._' : `_dex, in ${sha.slice(0, 7)}._`;
    await forge.replyInThread({ target, pr: ref.number, thread: r.thread, body: `${r.text}\n\n${signed}\n${marker}`, marker }, `review · reply in ${r.thread ? `thread ${r.thread}` : `PR #${ref.number}`}`);
  }
  return revised.replies.filter((r) => r.question);
}

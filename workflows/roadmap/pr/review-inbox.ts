import type { ReviewSubmitted } from '../../../core/forge/review';

/**
 * The reviews `dex webhook` told the roadmap of (docs/forge-triggers.md#reviews-answered-on-the-same-pr),
 * per task: each queued once, whatever the forge redelivers, and taken in the order they came when
 * the task's landing is free (CI read, no phase in flight). An approval is kept apart: it passes
 * the `merge` gate of the `review` profile, until a later review asks for changes.
 */
export class ReviewInbox {
  private readonly queued = new Map<string, ReviewSubmitted[]>();
  // By kind and id: a review's id and a comment's (a request's) come from different sequences on GitHub.
  private readonly seen = new Set<string>();
  private readonly approvals = new Map<string, string>();

  /** Takes `review` in; returns what the run's steps say of it, or undefined for a review heard before. */
  notify(review: ReviewSubmitted): string | undefined {
    const key = `${review.request === undefined ? 'review' : 'comment'} ${review.reviewId}`;
    if (this.seen.has(key)) return undefined;
    this.seen.add(key);
    const said = `${review.taskId} PR #${review.pr}: ${review.author} ${review.state.replace('_', ' ')}`;
    if (review.state === 'approved') {
      this.approvals.set(review.taskId, review.author);
      return said;
    }
    if (review.state === 'changes_requested') this.approvals.delete(review.taskId);
    this.queued.set(review.taskId, [...(this.queued.get(review.taskId) ?? []), review]);
    return review.request === undefined ? `${said} (review ${review.reviewId}, queued)` : `${review.taskId} PR #${review.pr}: ${review.author} asked @dex ${review.request} (comment ${review.reviewId}, queued)`;
  }

  /** True when a review of `taskId` waits to be taken. */
  pending(taskId: string): boolean {
    return (this.queued.get(taskId)?.length ?? 0) > 0;
  }

  /** The oldest review of `taskId` not taken yet, taken now. */
  next(taskId: string): ReviewSubmitted | undefined {
    return this.queued.get(taskId)?.shift();
  }

  /** Who approved `taskId`'s pull request, when someone did and no later review asked for changes. */
  approvedBy(taskId: string): string | undefined {
    return this.approvals.get(taskId);
  }
}

/** How a child task run ended, as its parent reads it: a roadmap's task, or an attempt of a best-of-N task (docs/attempts.md). */
import { ApplicationFailure, CancelledFailure, ChildWorkflowFailure } from '@temporalio/workflow';
import { FAILURE } from '../../core/run/failure-types';
import type { TaskResult } from '../../core/task/task-types';

/** How a child task ended: its result, or why it did not complete. */
export type ChildEnd =
  | { id: string; result: TaskResult }
  | { id: string; failure: { kind: 'failed' | 'rejected' | 'cancelled'; message: string; result?: TaskResult } };

/** How a child's failure reads to its parent: cancelled, rejected (its gate said no) or failed. */
export function classifyChildFailure(id: string, err: unknown): ChildEnd {
  const cause = err instanceof ChildWorkflowFailure ? err.cause : err;
  const kind = cause instanceof CancelledFailure ? 'cancelled' : cause instanceof ApplicationFailure && cause.type === FAILURE.TaskRejected ? 'rejected' : 'failed';
  const result = cause instanceof ApplicationFailure ? (cause.details?.[0] as TaskResult | undefined) : undefined;
  return { id, failure: { kind, message: cause instanceof Error ? cause.message : String(err), result } };
}


import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure } from '@temporalio/common';
import type { RunState } from '../../core/run/run-types';
import { statusQuery } from '../../core/run/definitions';
import type { ProgressView } from './progress-view';

/** How a run ended, as the CLI reports it; `result` is the workflow's result (or the failure's first detail). */
export interface RunEnd<R = unknown> {
  state: RunState | 'terminated';
  result?: R;
  error?: string;
}

/** What a run the CLI started produced: its id, and how it ended unless detached. */
export interface DrivenRun<R> {
  workflowId: string;
  end?: RunEnd<R>;
  webUi?: string;
}

/**
 * How long one status poll waits for an answer. A query waits for a worker to answer it, and with
 * none alive it would hang for the server's own timeout (half a minute), the tick that notices
 * and serves unclaimed work with it.
 */
const QUERY_DEADLINE_MS = 1_500;

/** The run's status, or an error when no worker answers within QUERY_DEADLINE_MS. */
const askStatus = (handle: WorkflowHandle) => handle.client.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.query(statusQuery));

/** A run result that says its own state, as every dex workflow's result does. */
type WithState = { state?: RunState };

/** How a finished workflow ended: its result, or the failure it ended with. */
export async function runEnd<R>(handle: WorkflowHandle): Promise<RunEnd<R>> {
  try {
    const result = (await handle.result()) as R;
    return { state: (result as WithState)?.state ?? 'completed', result };
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const cause = err.cause;
    // Its state says it all: an error 'cancelled' beside it would read `cancelled — cancelled`.
    if (cause instanceof CancelledFailure) return { state: 'cancelled' };
    if (cause instanceof TerminatedFailure) return { state: 'terminated', error: cause.message };
    if (cause instanceof ApplicationFailure) {
      const result = cause.details?.[0] as R | undefined;
      return { state: (result as WithState | undefined)?.state ?? 'failed', result, error: cause.message };
    }
    return { state: 'failed', error: cause?.message ?? err.message };
  }
}

/**
 * Shows the run's progress in `view` until the run ends, and returns how it ended. `onTick` runs
 * about every two seconds meanwhile (to notice work no worker takes).
 */
export async function followRun<R = unknown>(
  handle: WorkflowHandle,
  view: ProgressView,
  opts: { intervalMs?: number; onTick?: () => Promise<void> } = {},
): Promise<RunEnd<R>> {
  const intervalMs = opts.intervalMs ?? 300;
  let nextTick = Date.now() + 2_000;
  let done = false;
  const ended = runEnd<R>(handle).finally(() => {
    done = true;
  });
  while (!done) {
    try {
      view.status(await askStatus(handle));
    } catch {
      // The run may not have had its first workflow task yet, has no worker, or has just closed.
    }
    if (opts.onTick && Date.now() >= nextTick) {
      nextTick = Date.now() + 2_000;
      await opts.onTick().catch(() => undefined);
    }
    await Promise.race([ended, new Promise((r) => setTimeout(r, intervalMs))]);
  }
  try {
    // The steps between the last poll and the end (a closed run still answers its query).
    view.status(await askStatus(handle));
  } catch {
    // No worker is left to answer: the steps shown so far are all there is.
  }
  view.close();
  return ended;
}

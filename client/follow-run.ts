import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure } from '@temporalio/common';
import type { RunState, RunStatus, TaskResult } from '../core/types';

/** How a run ended, as the CLI reports it. */
export interface RunEnd {
  state: RunState | 'terminated';
  result?: TaskResult;
  error?: string;
}

/** One progress line for a status, or undefined when there is nothing to show. */
export function progressLine(s: RunStatus): string {
  const where = [s.current.taskId, s.current.phase].filter(Boolean).join(' ');
  const turn = s.current.turn ? ` turn ${s.current.turn}` : '';
  const doing = s.waitingFor
    ? `waiting at gate "${s.waitingFor.gate}"${s.waitingFor.reason ? `: ${s.waitingFor.reason}` : ''}`
    : s.state === 'paused'
      ? 'paused'
      : (s.current.activity ?? s.state);
  const tokens = `${s.tokens.input + s.tokens.cacheRead + s.tokens.cacheWrite} in / ${s.tokens.output} out`;
  return `[${where}]${turn} ${doing} · ${tokens} · $${s.costUsd.toFixed(4)}`;
}

/** How a finished workflow ended: its result, or the failure it ended with. */
export async function runEnd(handle: WorkflowHandle): Promise<RunEnd> {
  try {
    const result = (await handle.result()) as TaskResult;
    return { state: result.state, result };
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const cause = err.cause;
    if (cause instanceof CancelledFailure) return { state: 'cancelled', error: 'cancelled' };
    if (cause instanceof TerminatedFailure) return { state: 'terminated', error: cause.message };
    if (cause instanceof ApplicationFailure) {
      const result = cause.details?.[0] as TaskResult | undefined;
      return { state: result?.state ?? 'failed', result, error: cause.message };
    }
    return { state: 'failed', error: cause?.message ?? err.message };
  }
}

/**
 * Shows live progress on stderr (one line a change) until the run ends, and returns how it
 * ended. `onTick` runs about every two seconds meanwhile (to notice a run no worker serves).
 */
export async function followRun(
  handle: WorkflowHandle,
  show: (line: string) => void,
  opts: { intervalMs?: number; onTick?: () => Promise<void> } = {},
): Promise<RunEnd> {
  const intervalMs = opts.intervalMs ?? 300;
  let nextTick = Date.now() + 2_000;
  let last = '';
  let done = false;
  const ended = runEnd(handle).finally(() => {
    done = true;
  });
  while (!done) {
    try {
      const line = progressLine(await handle.query<RunStatus>('status'));
      if (line !== last) show(line);
      last = line;
    } catch {
      // The run may not have had its first workflow task yet, or has just closed.
    }
    if (opts.onTick && Date.now() >= nextTick) {
      nextTick = Date.now() + 2_000;
      await opts.onTick().catch(() => undefined);
    }
    await Promise.race([ended, new Promise((r) => setTimeout(r, intervalMs))]);
  }
  return ended;
}

import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure } from '@temporalio/common';
import type { RunState, RunStatus } from '../core/run-types';
import { statusQuery } from '../workflows/run/definitions';

/** How a run ended, as the CLI reports it; `result` is the workflow's result (or the failure's first detail). */
export interface RunEnd<R = unknown> {
  state: RunState | 'terminated';
  result?: R;
  error?: string;
}

/** A run result that says its own state, as every dex workflow's result does. */
type WithState = { state?: RunState };

function spent(s: RunStatus): string {
  const tokens = `${s.tokens.input + s.tokens.cacheRead + s.tokens.cacheWrite} in / ${s.tokens.output} out`;
  return `${tokens} · $${s.costUsd.toFixed(4)}`;
}

/** Leads every progress line of a run whose commands are not confined. */
const unsandboxedMark = (s: RunStatus): string => (s.sandbox === 'off' ? '[UNSANDBOXED] ' : '');

/** One progress line for a status: where the run is, what it does or waits for, what it spent. */
export function progressLine(s: RunStatus): string {
  const where = [s.current.taskId, s.current.phase].filter(Boolean).join(' ');
  const turn = s.current.turn ? ` turn ${s.current.turn}` : '';
  const doing = s.waitingFor
    ? `waiting at gate "${s.waitingFor.gate}"${s.waitingFor.reason ? `: ${s.waitingFor.reason}` : ''}`
    : s.state === 'paused'
      ? 'paused'
      : (s.current.activity ?? s.state);
  return `${unsandboxedMark(s)}[${where}]${turn} ${doing} · ${spent(s)}`;
}

/** The progress lines to show for `s`, given the last step already shown; steps the poll missed are included. */
export function newProgressLines(s: RunStatus, lastSeq: number): { lines: string[]; lastSeq: number } {
  const steps = (s.recent ?? []).filter((step) => step.seq > lastSeq);
  const prefix = `${unsandboxedMark(s)}${s.kind === 'task' ? `[${s.current.taskId ?? ''}] ` : `[${s.kind}] `}`;
  const lines = steps.map((step) => `${prefix}${step.text}`);
  if (lines.length) lines[lines.length - 1] += ` · ${spent(s)}`;
  return { lines, lastSeq: steps.at(-1)?.seq ?? lastSeq };
}

/** How a finished workflow ended: its result, or the failure it ended with. */
export async function runEnd<R>(handle: WorkflowHandle): Promise<RunEnd<R>> {
  try {
    const result = (await handle.result()) as R;
    return { state: (result as WithState)?.state ?? 'completed', result };
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const cause = err.cause;
    if (cause instanceof CancelledFailure) return { state: 'cancelled', error: 'cancelled' };
    if (cause instanceof TerminatedFailure) return { state: 'terminated', error: cause.message };
    if (cause instanceof ApplicationFailure) {
      const result = cause.details?.[0] as R | undefined;
      return { state: (result as WithState | undefined)?.state ?? 'failed', result, error: cause.message };
    }
    return { state: 'failed', error: cause?.message ?? err.message };
  }
}

/**
 * Shows live progress on stderr (one line a change) until the run ends, and returns how it
 * ended. `onTick` runs about every two seconds meanwhile (to notice a run no worker serves).
 */
export async function followRun<R = unknown>(
  handle: WorkflowHandle,
  show: (line: string) => void,
  opts: { intervalMs?: number; onTick?: () => Promise<void> } = {},
): Promise<RunEnd<R>> {
  const intervalMs = opts.intervalMs ?? 300;
  let nextTick = Date.now() + 2_000;
  let lastLine = '';
  let lastSeq = 0;
  let done = false;
  const ended = runEnd<R>(handle).finally(() => {
    done = true;
  });
  while (!done) {
    try {
      const status = await handle.query(statusQuery);
      const fresh = newProgressLines(status, lastSeq);
      fresh.lines.forEach(show);
      lastSeq = fresh.lastSeq;
      // Waiting, pausing and ending are states, not steps: show them when they change.
      const line = status.state === 'running' ? '' : progressLine(status);
      if (line && line !== lastLine) show(line);
      lastLine = line;
    } catch {
      // The run may not have had its first workflow task yet, or has just closed.
    }
    if (opts.onTick && Date.now() >= nextTick) {
      nextTick = Date.now() + 2_000;
      await opts.onTick().catch(() => undefined);
    }
    await Promise.race([ended, new Promise((r) => setTimeout(r, intervalMs))]);
  }
  try {
    // The steps between the last poll and the end (a closed run still answers its query).
    newProgressLines(await handle.query(statusQuery), lastSeq).lines.forEach(show);
  } catch {
    // No worker is left to answer: the steps shown so far are all there is.
  }
  return ended;
}

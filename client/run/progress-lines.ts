/**
 * A run's progress as text, from its `status` query's answer: the lines a pipe gets (one per
 * step and state change), the one live line a terminal redraws in place, and the lasting events
 * printed above it. Pure: status (and elapsed time) in, text out.
 */
import type { RunStatus } from '../../core/run/run-types';
import { formatUsd, tokensText } from '../../core/text/spending';

/** What the run spent, as every progress line ends (docs/interfaces.md#what-a-run-spent). */
const spent = (s: RunStatus): string => `${tokensText(s.tokens)} · ${formatUsd(s.costUsd)}`;

/** Leads every progress line of a run whose commands are not confined. */
const unsandboxedMark = (s: RunStatus): string => (s.sandbox === 'off' ? '[UNSANDBOXED] ' : '');

/** What a paused run that waits at a gate will do once answered (docs/interfaces.md#people-in-the-loop). */
const PAUSED_AT_GATE = 'paused: stops after this gate until resumed';

/** What the run does now, or the gate it waits at. */
function doing(s: RunStatus): string {
  if (s.waitingFor) return `waiting at gate "${s.waitingFor.gate}"${s.waitingFor.reason ? `: ${s.waitingFor.reason}` : ''}${s.paused ? ` (${PAUSED_AT_GATE})` : ''}`;
  // An ended run's last activity is history: its state says what became of it.
  return s.state === 'running' ? (s.current.activity ?? s.state) : s.state;
}

/** Where the run is, as its lines begin: a task's id and phase; another kind's name, then its task and phase (never an empty `[]`). */
const whereOf = (s: RunStatus): string =>
  (s.kind === 'task' ? [s.current.taskId, s.current.phase] : [s.kind, s.current.taskId, s.current.phase]).filter(Boolean).join(' ') || s.kind;

/** One progress line for a status: where the run is, what it does or waits for, what it spent. */
export function progressLine(s: RunStatus): string {
  const turn = s.current.turn ? ` turn ${s.current.turn}` : '';
  return `${unsandboxedMark(s)}[${whereOf(s)}]${turn} ${doing(s)} · ${spent(s)}`;
}

/** What leads a run's step lines: the task, or the kind. */
const stepPrefix = (s: RunStatus): string => `${unsandboxedMark(s)}${s.kind === 'task' ? `[${s.current.taskId ?? ''}] ` : `[${s.kind}] `}`;

/** The progress lines to show for `s`, given the last step already shown; steps the poll missed are included. */
export function newProgressLines(s: RunStatus, lastSeq: number): { lines: string[]; lastSeq: number } {
  const steps = (s.recent ?? []).filter((step) => step.seq > lastSeq);
  const prefix = stepPrefix(s);
  const lines = steps.map((step) => `${prefix}${step.text}`);
  if (lines.length) lines[lines.length - 1] += ` · ${spent(s)}`;
  return { lines, lastSeq: steps.at(-1)?.seq ?? lastSeq };
}

/** Elapsed time as a person reads it: `42s`, `3m05s`, `1h07m`. */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** `text` cut to `width` characters (with an ellipsis), so a redrawn line never wraps. */
export function fitWidth(text: string, width: number | undefined): string {
  if (!width || width < 2 || text.length < width) return text;
  return `${text.slice(0, width - 2)}…`;
}

/**
 * The live status line a terminal redraws in place: where the run is (task and phase, or its
 * kind), its turn, its step or the gate it waits at, the time since it started, tokens and cost.
 */
export function liveStatusLine(s: RunStatus, elapsedMs: number, width?: number): string {
  const parts = [`${unsandboxedMark(s)}[${whereOf(s)}]`, s.current.turn ? `turn ${s.current.turn}` : undefined, doing(s), formatElapsed(elapsedMs), spent(s)];
  return fitWidth(parts.filter(Boolean).join(' · '), width);
}

/**
 * The events a terminal keeps as lines above the live line, since status `prev`: a task's phase
 * ending and its checkpoint commit; every step of the other kinds (a roadmap's task started or
 * landed, a layer's target done), which are events, not the where-am-I a task's steps are.
 */
export function lastingLines(prev: RunStatus | undefined, s: RunStatus, lastSeq: number): { lines: string[]; lastSeq: number } {
  if (s.kind !== 'task') return newProgressLines(s, lastSeq);
  const seq = s.recent?.at(-1)?.seq ?? lastSeq;
  const prefix = stepPrefix(s);
  const lines: string[] = [];
  const was = prev?.current.phase;
  if (was && s.current.phase && s.current.phase !== was) lines.push(`${prefix}${was} ended · now ${s.current.phase} · ${spent(s)}`);
  if (s.commit && s.commit !== prev?.commit) {
    lines.push(`${prefix}${s.current.phase ? `${s.current.phase} ` : ''}committed ${s.commit.slice(0, 10)}${s.branch ? ` on ${s.branch}` : ''}`);
  }
  return { lines, lastSeq: seq };
}

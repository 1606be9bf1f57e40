/**
 * Where a followed run's progress goes: on a terminal, one live status line redrawn in place
 * with lasting events printed above it; on a pipe, plain lines (one per step and state change)
 * that a log file or a test can read; with --json, nowhere.
 */
import type { RunStatus } from '../../core/run/run-types';
import type { Output } from '../cli-context';
import { fitWidth, lastingLines, liveStatusLine, newProgressLines, progressLine } from './progress-lines';

/** What following a run shows. */
export interface ProgressView {
  /** The run's status, from the latest poll. */
  status(s: RunStatus): void;
  /** A lasting line of the command's own (a worker it starts). */
  say(line: string): void;
  /** What the command itself waits for (a worker), shown until replaced; undefined clears it. */
  note(text: string | undefined): void;
  /** Leaves the terminal clean for what the command prints next. */
  close(): void;
}

/** How often a plain view repeats a note that stays (a wait that goes on). */
const PLAIN_NOTE_EVERY_MS = 10_000;

/** Waiting, pausing and ending are states, not steps: each is shown once when the state changes. */
class StateLines {
  private last = '';

  changed(s: RunStatus): string | undefined {
    const line = s.state === 'running' ? '' : progressLine(s);
    const fresh = line && line !== this.last ? line : undefined;
    this.last = line;
    return fresh;
  }
}

/** Plain lines, as a pipe or a log file wants them: every step, every state change. */
export class PlainProgress implements ProgressView {
  private lastSeq = 0;
  private readonly states = new StateLines();
  private lastNoteAt = 0;

  constructor(
    private readonly show: (line: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  status(s: RunStatus): void {
    const fresh = newProgressLines(s, this.lastSeq);
    fresh.lines.forEach(this.show);
    this.lastSeq = fresh.lastSeq;
    const state = this.states.changed(s);
    if (state) this.show(state);
  }

  say(line: string): void {
    this.show(line);
  }

  note(text: string | undefined): void {
    if (text === undefined) {
      this.lastNoteAt = 0;
      return;
    }
    if (this.now() - this.lastNoteAt < PLAIN_NOTE_EVERY_MS) return;
    this.lastNoteAt = this.now();
    this.show(text);
  }

  close(): void {}
}

/** The terminal's stream, as far as the live view uses it. */
interface TerminalStream {
  write(text: string): unknown;
  columns?: number;
}

/** Back to the start of the line, and clear it. */
const CLEAR_LINE = '\r\x1b[2K';

/** One status line redrawn in place (`\r` and clear line), with lasting events printed above it. */
export class LiveProgress implements ProgressView {
  private lastSeq = 0;
  private prev: RunStatus | undefined;
  private readonly states = new StateLines();
  private live = '';
  private noted: string | undefined;

  constructor(
    private readonly stream: TerminalStream,
    private readonly startedAt: number,
    private readonly now: () => number = Date.now,
  ) {}

  status(s: RunStatus): void {
    const lasting = lastingLines(this.prev, s, this.lastSeq);
    this.lastSeq = lasting.lastSeq;
    this.prev = s;
    const state = this.states.changed(s);
    for (const line of [...lasting.lines, ...(state ? [state] : [])]) this.printAbove(line);
    this.live = liveStatusLine(s, this.now() - this.startedAt, this.stream.columns);
    this.redraw();
  }

  say(line: string): void {
    this.printAbove(line);
  }

  note(text: string | undefined): void {
    this.noted = text;
    this.redraw();
  }

  close(): void {
    this.stream.write(CLEAR_LINE);
  }

  private printAbove(line: string): void {
    this.stream.write(`${CLEAR_LINE}${line}\n`);
    this.redraw();
  }

  private redraw(): void {
    this.stream.write(`${CLEAR_LINE}${fitWidth(this.noted ?? this.live, this.stream.columns)}`);
  }
}

/** Shows nothing (--json: stdout holds one document, stderr stays quiet). */
const SILENT: ProgressView = { status: () => {}, say: () => {}, note: () => {}, close: () => {} };

/** The view for this command: live on a terminal's stderr, plain lines on a pipe, nothing with --json. */
export function progressView(out: Output, startedAt: number, stream: NodeJS.WriteStream = process.stderr): ProgressView {
  if (out.json) return SILENT;
  if (stream.isTTY && process.env.TERM !== 'dumb') return new LiveProgress(stream, startedAt);
  return new PlainProgress(out.info);
}

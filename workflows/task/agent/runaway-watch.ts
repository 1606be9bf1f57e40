import { DEFAULT_RUNAWAY } from '../../../core/task/phases';
import type { RunawayLimits } from '../../../core/task/task-types';
import { plural } from '../../../core/text/plural';
import { causeOnOneLine, failureCause } from '../../../core/task/verify-failures';

/**
 * Notices a phase that goes round in circles: the same verify failure N times in a row, or N
 * tool turns in a row that leave the worktree as it was. Deterministic: it sees only what the
 * activities returned.
 */
export class RunawayWatch {
  private readonly limits: RunawayLimits;
  private lastFailure: string | undefined;
  private sameFailures = 0;
  private lastFingerprint: string | undefined;
  private unchangedTurns = 0;

  constructor(
    limits: RunawayLimits | undefined,
    private readonly changesFiles: boolean,
  ) {
    this.limits = limits ?? DEFAULT_RUNAWAY;
  }

  /** After a tool turn; returns why the phase is a runaway, if it is. */
  afterToolTurn(fingerprint: string | undefined): string | undefined {
    if (!this.changesFiles) return undefined;
    const unchanged = fingerprint === undefined || fingerprint === this.lastFingerprint;
    this.lastFingerprint = fingerprint ?? this.lastFingerprint;
    this.unchangedTurns = unchanged ? this.unchangedTurns + 1 : 0;
    if (this.unchangedTurns < this.limits.noChangeTurns) return undefined;
    this.unchangedTurns = 0;
    return `${plural(this.limits.noChangeTurns, 'turn')} in a row without a change to the worktree`;
  }

  /**
   * How many tool turns in a row may leave the worktree as it is before the next one makes the
   * phase a runaway; `Infinity` in a phase that changes no files, where such turns are the work.
   */
  unchangedTurnsLeft(): number {
    return this.changesFiles ? this.limits.noChangeTurns - this.unchangedTurns - 1 : Infinity;
  }

  /**
   * After a failed verify; returns why the phase is a runaway, if it is, with the cause that
   * repeated (verify's `cause`, else the one its tail names), so the person at the gate can decide.
   */
  afterVerifyFailure(tail: string, cause?: string): string | undefined {
    // Timings and counts differ between runs of the same failure: compare without numbers.
    const failure = tail.replace(/\d+(\.\d+)?/g, 'N');
    this.sameFailures = failure === this.lastFailure ? this.sameFailures + 1 : 1;
    this.lastFailure = failure;
    if (this.sameFailures < this.limits.sameFailure) return undefined;
    this.sameFailures = 0;
    const repeated = cause ?? failureCause(tail);
    return `the same verify failure ${plural(this.limits.sameFailure, 'time')} in a row${repeated ? `: ${causeOnOneLine(repeated)}` : ''}`;
  }
}

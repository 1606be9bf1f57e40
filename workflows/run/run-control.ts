import type { Duration } from '@temporalio/common';
import { condition, setHandler } from '@temporalio/workflow';
import type { ApproveInput, GateConfig, RejectInput, RunStatus } from '../../core/run-types';
import { approveSignal, pauseSignal, rejectSignal, resumeSignal } from './definitions';

/** A person's (or a deadline's) answer at a gate. */
export type GateDecision =
  | ({ action: 'approve' } & ApproveInput)
  | ({ action: 'reject' } & RejectInput);

/**
 * Gates and pause for one run: installs the approve/reject/pause/resume handlers and lets
 * the workflow wait for a decision. A signal that arrives while nothing waits is ignored,
 * so a stray approve can never pass a gate that has not been reached yet.
 */
export class RunControl {
  waitingFor: RunStatus['waitingFor'] = null;
  paused = false;
  private decision: GateDecision | undefined;

  /**
   * @param onChange runs when the run starts or stops waiting.
   * @param forward receives the signals this run does not take itself (a roadmap hands
   *   approve/reject to the task that waits, and pause/resume to every running task).
   */
  constructor(
    private readonly onChange: () => Promise<void> = async () => {},
    private readonly forward?: (signal: 'approve' | 'reject' | 'pause' | 'resume', payload: unknown) => Promise<void>,
  ) {
    setHandler(approveSignal, async (input) => {
      if (this.waitingFor && !input?.taskId) this.decision = { action: 'approve', ...(input ?? {}) };
      else await this.forward?.('approve', input ?? {});
    });
    setHandler(rejectSignal, async (input) => {
      if (this.waitingFor && !input?.taskId) {
        this.decision = { action: 'reject', by: input?.by, reason: input?.reason || 'rejected' };
      } else await this.forward?.('reject', input);
    });
    setHandler(pauseSignal, async () => {
      this.paused = true;
      await this.forward?.('pause', {});
    });
    setHandler(resumeSignal, async () => {
      this.paused = false;
      await this.forward?.('resume', {});
    });
  }

  /** Waits at `gate` until a decision arrives or the deadline passes (then takes the default action). */
  async waitAt(gate: string, config: GateConfig = {}, detail: { taskId?: string; reason?: string } = {}): Promise<GateDecision> {
    this.decision = undefined;
    this.waitingFor = { gate, since: new Date().toISOString(), ...detail };
    await this.onChange();
    try {
      const decided = config.deadline
        ? await condition(() => this.decision !== undefined, config.deadline as Duration)
        : await condition(() => this.decision !== undefined).then(() => true);
      if (decided && this.decision) return this.decision;
      const action = config.defaultAction ?? 'reject';
      const why = `no decision within ${config.deadline}: default action ${action}`;
      return action === 'approve' ? { action, by: 'deadline', note: why } : { action, by: 'deadline', reason: why };
    } finally {
      this.waitingFor = null;
      this.decision = undefined;
      await this.onChange();
    }
  }

  /** Returns once the run is not paused (at once when it is not). */
  async unpaused(): Promise<void> {
    if (this.paused) await condition(() => !this.paused);
  }
}

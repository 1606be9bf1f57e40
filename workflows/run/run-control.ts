import type { Duration } from '@temporalio/common';
import { condition, setHandler } from '@temporalio/workflow';
import type { GateConfig, RunStatus } from '../../core/run/run-types';
import { approveSignal, decideUpdate, pauseSignal, rejectSignal, resumeSignal, type DecideInput, type DecideResult } from '../../core/run/definitions';


/**
 * Gates and pause for one run: installs the approve/reject/pause/resume handlers and lets
 * the workflow wait for a decision. A signal that arrives while nothing waits is ignored,
 * so a stray approve can never pass a gate that has not been reached yet.
 */
export class RunControl {
  waitingFor: RunStatus['waitingFor'] = null;
  paused = false;
  /** A best-of-N task's check of the attempt a decision chooses (workflows/task/attempts/best-of.ts); throws to refuse it. */
  vetChoice?: (choice: string) => void;
  private decision: DecideInput | undefined;

  /**
   * @param onChange runs when the run starts or stops waiting.
   * @param forward receives the signals this run does not take itself (a roadmap hands
   *   approve/reject to the task that waits, and pause/resume to every running task).
   */
  constructor(
    private readonly onChange: () => Promise<void> = async () => {},
    private readonly forward?: (signal: 'approve' | 'reject' | 'pause' | 'resume', payload: unknown) => Promise<void>,
    private readonly waitingElsewhere?: (taskId: string | undefined) => DecideResult | 'no such task' | undefined,
  ) {
    setHandler(decideUpdate, (input) => this.decide(input), { validator: (input) => void this.decisionTarget(input) });
    setHandler(approveSignal, async (input) => {
      if (this.waitingFor && !input?.taskId) this.decision = { action: 'approve', ...(input ?? {}) };
      else await this.forward?.('approve', input ?? {});
    });
    setHandler(rejectSignal, async (input) => {
      if (this.waitingFor && !input?.taskId) {
        this.decision = { action: 'reject', by: input?.by, reason: input?.reason || 'rejected', retry: input?.retry === true };
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

  /** True when this run's own gate takes the decision: it waits, and the decision names no other task. */
  private takesLocally(input: DecideInput): boolean {
    return !!this.waitingFor && (!input.taskId || input.taskId === this.waitingFor.taskId);
  }

  /** Where a decision goes: this run's gate, or a task's (a roadmap); throws (refusing the update) when nothing waits. */
  private decisionTarget(input: DecideInput): DecideResult {
    if (input?.action !== 'approve' && input?.action !== 'reject') throw new Error('action must be "approve" or "reject"');
    if (input.action === 'reject' && !input.reason) throw new Error('a reject needs a reason');
    if (this.takesLocally(input) && input.action === 'approve' && input.choice !== undefined) {
      if (!this.vetChoice || this.waitingFor!.gate !== 'choose') throw new Error(`a choice is for the choose gate of a best-of-N task; this run waits at ${this.waitingFor!.gate}`);
      this.vetChoice(input.choice);
    }
    if (this.takesLocally(input)) return { gate: this.waitingFor!.gate, ...(this.waitingFor!.taskId ? { taskId: this.waitingFor!.taskId } : {}) };
    const elsewhere = this.waitingElsewhere?.(input.taskId);
    if (elsewhere === 'no such task') throw new Error(`no such task: ${input.taskId}`);
    if (!elsewhere) throw new Error(input.taskId ? `nothing waits: task ${input.taskId} waits at no gate` : 'nothing waits: the run waits at no gate');
    return elsewhere;
  }

  /** Takes a validated decision: this run's gate passes or fails, or a task's gets it as a signal. */
  private async decide(input: DecideInput): Promise<DecideResult> {
    const target = this.decisionTarget(input);
    const { action, ...payload } = input;
    if (this.takesLocally(input)) {
      this.decision = action === 'approve' ? { action, ...payload } : { action, by: input.by, reason: input.reason, retry: input.retry === true };
    } else await this.forward?.(action, { ...payload, taskId: target.taskId });
    return target;
  }

  /** Waits at `gate` until a decision arrives or the deadline passes (then takes the default action). */
  async waitAt(gate: string, config: GateConfig = {}, detail: { taskId?: string; reason?: string } = {}): Promise<DecideInput> {
    return (await this.waitUnless(gate, config, detail, () => false))!;
  }

  /**
   * Waits at `gate` as {@link waitAt} does, or until `interrupt()` turns true (a review came for a
   * landing that waits, docs/forge-triggers.md#reviews-answered-on-the-same-pr): then undefined, and the gate closes undecided.
   */
  async waitUnless(gate: string, config: GateConfig, detail: { taskId?: string; reason?: string }, interrupt: () => boolean): Promise<DecideInput | undefined> {
    // One gate at a time: a roadmap's landings through pull requests run side by side, and a
    // second one that must wait queues behind the first (a run whose waits never overlap never gets here).
    while (this.waitingFor && !interrupt()) await condition(() => !this.waitingFor || interrupt());
    if (interrupt()) return undefined;
    this.decision = undefined;
    this.waitingFor = { gate, since: new Date().toISOString(), ...detail };
    await this.onChange();
    try {
      const settled = () => this.decision !== undefined || interrupt();
      const decided = config.deadline ? await condition(settled, config.deadline as Duration) : await condition(settled).then(() => true);
      if (decided && this.decision) return this.decision;
      if (decided) return undefined;
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

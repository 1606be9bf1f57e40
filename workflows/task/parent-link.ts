import { getExternalWorkflowHandle, patched, workflowInfo } from '@temporalio/workflow';
import type { RunStatus } from '../../core/run/run-types';
import { taskUpdateSignal, type TaskSpending } from '../../core/run/definitions';

/**
 * How long after its last word to its roadmap a task holds back a model call's spending, unless
 * its input says (`holdSpendingMs`, which tests shorten): a report per call would add a signal
 * (and a workflow task) per call to both histories, so calls close together share one
 * (docs/roadmaps.md#what-a-roadmap-shows-of-its-spending).
 */
const HOLD_SPENDING_MS = 30_000;

/** The tokens in a usage, all kinds together: what tells one reading of spending from the next. */
const tokensIn = (s: TaskSpending): number => s.tokens.input + s.tokens.output + s.tokens.cacheRead + s.tokens.cacheWrite;

/**
 * What a task tells the workflow that started it (a roadmap), when there is one: where it is
 * (its state, what it waits for, its phase) and what it spent. It speaks on changes — a phase
 * start, a wait and its end, the task's end — and its spending rides on every message it sends
 * (a grant request too); after a model call it reports on its own once it has been quiet for
 * the hold ({@link HOLD_SPENDING_MS} by default). So the roadmap's cost is exact whenever its tasks stop (at every gate)
 * and close behind them while they run (docs/roadmaps.md#what-a-roadmap-shows-of-its-spending).
 */
export class ParentLink {
  /** The spending the parent heard of last, and when (workflow time). */
  private told: { tokens: number; at: number } = { tokens: 0, at: -Infinity };

  /**
   * @param statusOf the task's `status` answer: where it is and what it spent.
   * @param holdMs how long spending is held back after the last report (TaskInput `holdSpendingMs`).
   */
  constructor(
    private readonly taskId: string,
    private readonly statusOf: () => RunStatus,
    private readonly holdMs: number = HOLD_SPENDING_MS,
  ) {}

  /** Tells the parent where the task is now (`phase`, when it is about to start one) and what it spent. */
  async tell(phase?: string): Promise<void> {
    const parent = workflowInfo().parent;
    if (!parent) return;
    const s = this.statusOf();
    this.told = { tokens: tokensIn(s), at: Date.now() };
    try {
      await getExternalWorkflowHandle(parent.workflowId, parent.runId).signal(taskUpdateSignal, {
        taskId: this.taskId,
        state: s.state,
        waitingFor: s.waitingFor,
        phase: phase ?? s.current.phase,
        tokens: s.tokens,
        costUsd: s.costUsd,
      });
    } catch {
      // The parent has closed (or continued as new): an update it cannot take changes nothing for the task.
    }
  }

  /** What the task has spent, for a message to the parent that carries it (a grant request): the parent has heard of it then. */
  carry(): TaskSpending {
    const { tokens, costUsd } = this.statusOf();
    this.told = { tokens: tokensIn({ tokens, costUsd }), at: Date.now() };
    return { tokens, costUsd };
  }

  /** After a model call: reports the spending the parent has not heard of, unless it heard from the task within the hold. */
  async spent(): Promise<void> {
    if (!workflowInfo().parent) return;
    const s = this.statusOf();
    if (tokensIn(s) === this.told.tokens || Date.now() - this.told.at < this.holdMs) return;
    // Runs recorded before tasks reported their spending between phases replay without it.
    if (!patched('spending-reports')) return;
    await this.tell();
  }
}

import type { RunState, RunStatus, TokenUsage, VerifyResult } from '../core/types';
import { addUsage, ZERO_USAGE } from '../core/usage';
import type { RunControl } from './run-control';

/** How many of the latest steps the status keeps. */
const RECENT_STEPS = 20;

/** What a task run has done so far: the source of its `status` query and its result. */
export class TaskProgress {
  state: RunState = 'running';
  current: RunStatus['current'];
  tokens: TokenUsage = ZERO_USAGE;
  costUsd = 0;
  turns = 0;
  branch?: string;
  commit?: string;
  error?: string;
  lastVerify?: VerifyResult;
  private recent: { seq: number; text: string }[] = [];
  private seq = 0;

  constructor(
    private readonly taskId: string,
    private readonly control: RunControl,
  ) {
    this.current = { taskId };
  }

  /** Records where the run is now. */
  at(where: { phase: string; turn?: number; activity?: string }): void {
    this.current = { taskId: this.taskId, ...where };
    if (where.turn !== undefined) this.turns = Math.max(this.turns, where.turn);
    const text = [where.phase, where.turn !== undefined ? `turn ${where.turn}` : undefined, where.activity].filter(Boolean).join(' ');
    this.recent = [...this.recent.slice(-(RECENT_STEPS - 1)), { seq: ++this.seq, text }];
  }

  addUsage(usage: TokenUsage, costUsd: number): void {
    this.tokens = addUsage(this.tokens, usage);
    this.costUsd += costUsd;
  }

  /** The `status` query's answer: a live state is refined by what the run control knows. */
  status(): RunStatus {
    const live = this.state === 'running';
    const state: RunState = live && this.control.waitingFor ? 'waiting' : live && this.control.paused ? 'paused' : this.state;
    return {
      kind: 'task',
      state,
      waitingFor: this.control.waitingFor,
      current: this.current,
      tokens: this.tokens,
      costUsd: this.costUsd,
      recent: this.recent,
      ...(this.branch ? { branch: this.branch } : {}),
      ...(this.commit ? { commit: this.commit } : {}),
      ...(this.error ? { error: this.error } : {}),
    };
  }
}

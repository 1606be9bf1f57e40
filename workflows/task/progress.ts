import type { SandboxMode } from '../../core/sandbox-policy';
import type { Budget, RunState, RunStatus, TokenUsage, VerifyResult } from '../../core/types';
import { addUsage, ZERO_USAGE } from '../../core/usage';
import { RecentSteps } from '../run/recent-steps';
import type { RunControl } from '../run/run-control';

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
  budget?: Budget;
  completedPhases: string[] = [];
  /** How the task's commands are confined; `off` is shown on every progress line. */
  sandbox: SandboxMode = 'bwrap';
  private readonly recent = new RecentSteps();

  constructor(
    private readonly taskId: string,
    private readonly control: RunControl,
    private readonly phases: string[],
    private readonly typed: boolean,
  ) {
    this.current = { taskId };
  }

  /** Records where the run is now. */
  at(where: { phase: string; turn?: number; activity?: string }): void {
    this.current = { taskId: this.taskId, ...where };
    if (where.turn !== undefined) this.turns += where.activity === 'model' ? 1 : 0;
    const text = [where.phase, where.turn !== undefined ? `turn ${where.turn}` : undefined, where.activity].filter(Boolean).join(' ');
    this.recent.add(text);
  }

  addUsage(usage: TokenUsage, costUsd: number): void {
    this.tokens = addUsage(this.tokens, usage);
    this.costUsd += costUsd;
  }

  /** The run's state as a person sees it: a live run that waits is `waiting` (or `budget_exceeded`), or `paused`. */
  liveState(): RunState {
    if (this.state !== 'running') return this.state;
    if (this.control.waitingFor) return this.control.waitingFor.gate === 'budget' ? 'budget_exceeded' : 'waiting';
    return this.control.paused ? 'paused' : 'running';
  }

  /** The `status` query's answer. */
  status(): RunStatus {
    const current = this.current.phase;
    return {
      kind: 'task',
      state: this.liveState(),
      waitingFor: this.control.waitingFor,
      current: this.current,
      tokens: this.tokens,
      costUsd: this.costUsd,
      recent: this.recent.list(),
      sandbox: this.sandbox,
      ...(this.typed
        ? {
            steps: {
              current: this.state === 'running' ? current : undefined,
              completed: this.completedPhases,
              pending: this.phases.filter((p) => !this.completedPhases.includes(p) && p !== current),
            },
          }
        : {}),
      ...(this.budget ? { budget: this.budget } : {}),
      ...(this.branch ? { branch: this.branch } : {}),
      ...(this.commit ? { commit: this.commit } : {}),
      ...(this.error ? { error: this.error } : {}),
    };
  }
}

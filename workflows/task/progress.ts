import type { SandboxMode } from '../../core/sandbox-policy';
import type { VerifyResult } from '../../activities/verify';
import type { RunStatus } from '../../core/run-types';
import type { RunControl } from '../run/run-control';
import { RunLedger } from '../run/run-ledger';

/** What a task run has done so far: its ledger, and what only a task has (branch, commit, phases, verify). */
export class TaskProgress {
  readonly ledger: RunLedger;
  current: RunStatus['current'];
  branch?: string;
  commit?: string;
  lastVerify?: VerifyResult;
  completedPhases: string[] = [];
  /** How the task's commands are confined; `off` is shown on every progress line. */
  sandbox: SandboxMode = 'bwrap';

  constructor(
    private readonly taskId: string,
    control: RunControl,
    private readonly phases: string[],
    private readonly typed: boolean,
  ) {
    this.ledger = new RunLedger('task', control);
    this.current = { taskId };
  }

  /** Records where the run is now; a model call counts as a turn. */
  at(where: { phase: string; turn?: number; activity?: string }): void {
    this.current = { taskId: this.taskId, ...where };
    if (where.turn !== undefined && where.activity === 'model') this.ledger.spend(undefined, 0, 1);
    this.ledger.step([where.phase, where.turn !== undefined ? `turn ${where.turn}` : undefined, where.activity].filter(Boolean).join(' '));
  }

  /** The `status` query's answer. */
  status(): RunStatus {
    const current = this.current.phase;
    return this.ledger.status(this.current, {
      sandbox: this.sandbox,
      ...(this.typed
        ? {
            steps: {
              current: this.ledger.state === 'running' ? current : undefined,
              completed: this.completedPhases,
              pending: this.phases.filter((p) => !this.completedPhases.includes(p) && p !== current),
            },
          }
        : {}),
      ...(this.branch ? { branch: this.branch } : {}),
      ...(this.commit ? { commit: this.commit } : {}),
    });
  }
}

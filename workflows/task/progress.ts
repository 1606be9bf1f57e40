import type { SandboxMode } from '../../core/safety/sandbox-policy';
import type { VerifyResult } from '../../core/task/task-types';
import type { RunStatus } from '../../core/run/run-types';
import type { TaskResult } from '../../core/task/task-types';
import { describeSetup, type SetupResult } from '../../core/run/setup-types';
import { describeChecks } from '../../core/task/project-checks';
import type { RunControl } from '../run/run-control';
import { RunLedger } from '../run/run-ledger';
import { ParentLink } from './parent-link';
import type { WorkerMove } from '../../core/fleet/placement-types';

/** What a task run has done so far: its ledger, and what only a task has (branch, commit, phases, verify). */
export class TaskProgress {
  readonly ledger: RunLedger;
  /** What the task tells the roadmap that started it, if one did. */
  readonly parent: ParentLink;
  current: RunStatus['current'];
  branch?: string;
  commit?: string;
  lastVerify?: VerifyResult;
  /** The task type the planner chose (docs/roadmaps.md#the-planner-and-escalate). */
  type?: string;
  /** The run and phase a rewound task took up (`dex retry`). */
  retryOf?: { workflowId: string; phase: string };
  /** The verify failures the base commit already had (`verifyBaseline`); undefined without a baseline. */
  baseline?: string[];
  /** What the setup step did (docs/real-repositories.md); undefined before it, and in runs without one. */
  setup?: SetupResult;
  /** The tail of the output of a setup that failed. */
  setupTail?: string;
  /** The verify commands setup picked, as shown: `npm test (detected)`; undefined when the config named them or none fit. */
  verifyDetected?: string;
  /** No test command was found: the task waits at the `unverified` gate before it ends. */
  unverified = false;
  /** The last verdict of the task's gate model (an AI review), when a gate is `by: model`. */
  review?: 'approve' | 'reject' | 'ask';
  /** Who let it end there. */
  unverifiedApprovedBy?: string;
  /** A fleet task's worker now, and its moves (workflows/run/placement.ts). */
  worker?: string;
  moves: WorkerMove[] = [];
  /** A fleet task's worktree as last recorded on the forge (`refs/dex/runs/<id>`): where a new worker takes it up. */
  recorded?: { sha: string; head: string; fingerprint?: string };
  completedPhases: string[] = [];
  /** How the task's commands are confined; `off` is shown on every progress line. */
  sandbox: SandboxMode = 'bwrap';

  constructor(
    private readonly taskId: string,
    control: RunControl,
    private readonly phases: string[],
    type: string | undefined,
    holdSpendingMs?: number,
  ) {
    this.ledger = new RunLedger('task', control);
    this.parent = new ParentLink(taskId, () => this.status(), holdSpendingMs);
    this.current = { taskId };
    this.type = type;
    this.typed = type !== undefined;
  }

  /** Its phases are a type's steps (docs/roadmaps.md): the status shows them. */
  private typed: boolean;

  /** The planner chose the task's type: its steps show in the status from now on. */
  planned(type: string): void {
    this.type = type;
    this.typed = true;
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
      ...(this.retryOf ? { retryOf: this.retryOf } : {}),
      ...(this.type ? { type: this.type } : {}),
      ...(this.setup ? { setup: describeSetup(this.setup) } : {}),
      ...(this.verifyDetected ? { verifyDetected: this.verifyDetected } : {}),
      ...(this.lastVerify?.checks ? { checks: describeChecks(this.lastVerify.checks) } : {}),
      ...(this.worker ? { worker: this.worker } : {}),
      ...(this.moves.length ? { moves: this.moves } : {}),
      ...(this.baseline ? { verify: verifyStatus(this.baseline, this.lastVerify) } : {}),
    });
  }
}

/** What a task's result keeps of its last status and verify, so `dex status` of an ended run still shows them (docs/interfaces.md). */
export function endedFields(progress: TaskProgress): Pick<TaskResult, 'type' | 'steps' | 'verify' | 'verifyTail' | 'verifyCause' | 'verifyDetected' | 'checks' | 'unverifiedApprovedBy' | 'worker' | 'moves'> {
  const { type, steps, verify, checks } = progress.status();
  const failed = progress.lastVerify && !progress.lastVerify.passed ? progress.lastVerify : undefined;
  return {
    ...(type ? { type } : {}),
    ...(steps ? { steps } : {}),
    ...(verify ? { verify } : {}),
    ...(failed ? { verifyTail: failed.tail } : {}),
    ...(failed?.cause ? { verifyCause: failed.cause } : {}),
    ...(progress.verifyDetected ? { verifyDetected: progress.verifyDetected } : {}),
    ...(checks ? { checks } : {}),
    ...(progress.unverifiedApprovedBy ? { unverifiedApprovedBy: progress.unverifiedApprovedBy } : {}),
    ...(progress.worker ? { worker: progress.worker } : {}),
    ...(progress.moves.length ? { moves: progress.moves } : {}),
  };
}

/** Which verify failures were there before the task and which are its own (docs/roadmaps.md#baseline-aware-verify). */
function verifyStatus(baseline: string[], last: VerifyResult | undefined): { preExisting: string[]; newFailures: string[] } {
  return { preExisting: last?.preExisting ?? baseline, newFailures: last?.newFailures ?? [] };
}

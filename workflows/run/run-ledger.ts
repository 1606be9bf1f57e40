import type { Budget, RunState, RunStatus, TokenUsage } from '../../core/run/run-types';
import { addUsage, addUsd, tokensIn, roundUsd, subtractUsage, ZERO_USAGE } from '../../core/run/usage';
import { formatUsd } from '../../core/text/spending';
import { RecentSteps } from './recent-steps';
import type { RunControl } from './run-control';
import { RunPublisher } from './run-publisher';

/** What a run (or a part of it) spent: tokens, cost and model turns. */
interface Spent {
  tokens: TokenUsage;
  costUsd: number;
  turns: number;
}

/** `a - b`, field by field: what was spent between two readings. */
export function minus(a: Spent, b: Spent): Spent {
  return {
    tokens: subtractUsage(a.tokens, b.tokens),
    costUsd: roundUsd(a.costUsd - b.costUsd),
    turns: a.turns - b.turns,
  };
}

/**
 * The one place a run's live state is derived (docs/architecture.md): its outcome once it
 * ended, what it spent, its budget, its latest steps, and, from its run control, whether it
 * waits (`waiting`, or `budget_exceeded` at the budget gate) or is paused. Every kind's
 * progress holds one and adds only its own fields to the `status` answer.
 */
export class RunLedger {
  /** The outcome once the run ended; `running` before. */
  state: RunState = 'running';
  error?: string;
  budget?: Budget;
  private own: Spent = { tokens: ZERO_USAGE, costUsd: 0, turns: 0 };
  private readonly recent: RecentSteps;
  private published?: { publisher: RunPublisher; statusOf: () => RunStatus };

  /**
   * @param spentBy where the spending comes from when the run's own counters are not it
   *   (a roadmap adds up its tasks).
   */
  constructor(
    readonly kind: RunStatus['kind'],
    readonly control: RunControl,
    opts: { recentSteps?: number; spentBy?: () => Spent } = {},
  ) {
    this.recent = new RecentSteps(opts.recentSteps);
    if (opts.spentBy) this.spentBy = opts.spentBy;
  }

  private readonly spentBy: () => Spent = () => this.own;

  /**
   * From now on, every change (a step, spending, the end, a wait through {@link publish}) is
   * published: search attributes and current details (docs/interfaces.md). `statusOf` is the
   * kind's whole `status` answer; `repo` what `DexRepo` says.
   */
  attach(statusOf: () => RunStatus, repo: string): void {
    this.published = { publisher: new RunPublisher(repo), statusOf };
    this.publish();
  }

  /** Publishes the current status (the run control calls it when a wait starts or ends). */
  publish(): void {
    if (this.published) this.published.publisher.publish(this.published.statusOf());
  }

  /** Counts a model call's (or a child's) usage. */
  spend(tokens: TokenUsage | undefined, costUsd: number | undefined, turns = 0): void {
    this.own = {
      tokens: tokens ? addUsage(this.own.tokens, tokens) : this.own.tokens,
      costUsd: addUsd(this.own.costUsd, costUsd ?? 0),
      turns: this.own.turns + turns,
    };
    this.publish();
  }

  /** What the run has spent so far, its cost without float noise whoever added it up. */
  spent(): Spent {
    const spent = this.spentBy();
    return { ...spent, costUsd: roundUsd(spent.costUsd) };
  }

  /** Adds a numbered step for watchers. */
  step(text: string): void {
    this.recent.add(text);
    this.publish();
  }

  /** Ends the run with `state` (and an error, when there is one). */
  end(state: RunState, error?: string): void {
    this.state = state;
    if (error) this.error = error;
    this.publish();
  }

  /** The reason the run is over its budget, or undefined when it is within it (or has none). */
  overBudget(): string | undefined {
    const budget = this.budget;
    if (!budget) return undefined;
    const { tokens: t, costUsd } = this.spent();
    const tokens = tokensIn(t) + t.output;
    if (budget.usd !== undefined && costUsd >= budget.usd) return `spent ${formatUsd(costUsd)} of a ${formatUsd(budget.usd)} budget`;
    if (budget.tokens !== undefined && tokens >= budget.tokens) return `used ${tokens} of a ${budget.tokens}-token budget`;
    return undefined;
  }

  /**
   * The state as a person sees it: the outcome once ended; while live, `waiting` at a gate
   * (`budget_exceeded` at the budget gate), `paused`, or `running`. `waitingFor` is what the
   * run (or, for a roadmap, one of its tasks) waits for.
   */
  liveState(waitingFor: RunStatus['waitingFor'] = this.control.waitingFor): RunState {
    if (this.state !== 'running') return this.state;
    if (waitingFor) return waitingFor.gate === 'budget' ? 'budget_exceeded' : 'waiting';
    return this.control.paused ? 'paused' : 'running';
  }

  /** The `status` answer every kind shares; `extra` adds the kind's own fields. */
  status<T extends Partial<RunStatus>>(current: RunStatus['current'], extra: T = {} as T, waitingFor = this.control.waitingFor): RunStatus & T {
    const { tokens, costUsd } = this.spent();
    return {
      kind: this.kind,
      state: this.liveState(waitingFor),
      waitingFor,
      current,
      tokens,
      costUsd,
      recent: this.recent.list(),
      ...(this.budget ? { budget: this.budget } : {}),
      ...(this.control.paused && this.state === 'running' ? { paused: true as const } : {}),
      ...(this.error ? { error: this.error } : {}),
      ...extra,
    };
  }
}

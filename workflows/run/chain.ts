import { patched, workflowInfo } from '@temporalio/workflow';
import { EVENTS_PER_ITEM, historyFull, HISTORY_LIMIT } from '../../core/run/history-limit';

/**
 * The workflow id and its first run's id: what a chain of runs that continue as new keeps its
 * artifacts (and a roadmap its memory) under, the same in every run of the chain.
 */
export function chainKey(): string {
  const { workflowId, firstExecutionRunId } = workflowInfo();
  return `${workflowId}/${firstExecutionRunId}`;
}

/**
 * What a kind's run that continues as new shares with the others (docs/layers.md#continue-as-new,
 * docs/sheets.md#continue-as-new, docs/roadmaps.md#long-roadmaps): the patch that lets it, what
 * the run before it handed on (`C`), and whether its history is full.
 */
export class RunChain<C extends { runs: number }> {
  /** False when replaying a run recorded before its kind had this check (before `patch`). */
  readonly bounded: boolean;
  readonly carried?: C;

  /** `patch` gates continuing as new; `chained` is the run's input; `perItem` the events one item adds to the history. */
  constructor(
    patch: string,
    private readonly chained: { historyLimit?: number; carried?: C },
    private readonly perItem = EVENTS_PER_ITEM,
  ) {
    this.bounded = patched(patch);
    this.carried = chained.carried;
  }

  /** This run's number in the chain, 1 for the first: what its artifacts are numbered by. */
  protected get run(): number {
    return (this.carried?.runs ?? 0) + 1;
  }

  /**
   * True when the run should start no more items (core/run/history-limit.ts historyFull), from its
   * history's length and Temporal's suggestion now, against the input's `historyLimit` (else {@link HISTORY_LIMIT}).
   */
  protected historyFull(running: number, started: number, carriedBytes: number): boolean {
    if (!this.bounded) return false;
    const info = workflowInfo();
    const limit = this.chained.historyLimit ?? HISTORY_LIMIT;
    const { perItem } = this;
    return historyFull({ historyLength: info.historyLength, suggested: info.continueAsNewSuggested, running, started, limit, carriedBytes, perItem });
  }
}

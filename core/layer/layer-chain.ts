/**
 * What a layer run carries into the next run of its chain (docs/layers.md#continue-as-new); when
 * it stops starting targets is core/run/history-limit.ts. Pure: the workflow sandbox imports it.
 */
import type { TokenUsage } from '../run/run-types';

/** What a layer run hands the next run of its chain: counters and store references, never the results. */
export interface LayerCarry {
  /** Runs of the chain that ended by continuing as new before this one. */
  runs: number;
  /** The first run's start and clock: the record's start, and what lookbacks count back from. */
  startedAt: string;
  now: number;
  /** Index of the first target (or resume point) no earlier run started. */
  next: number;
  /** Store artifacts of the earlier runs' target results (core/run/ids.ts layerChainResultsId), in order. */
  chunks: string[];
  /** Tokens, cost and estimated prompt tokens of the earlier runs' targets. */
  tokens: TokenUsage;
  costUsd: number;
  promptTokens: number;
  /** Earlier runs' targets by how they ended, for the `status` query; failed ones by name. */
  done: number;
  skipped: number;
  failed: string[];
}

/**
 * How a layer run bounds its history (docs/layers.md#continue-as-new): when it stops starting
 * targets, and what it carries into the next run of its chain. Pure: the workflow sandbox imports it.
 */
import type { TokenUsage } from '../run/run-types';

/**
 * Events a layer run's history may reach before it continues as new: under Temporal's warning at
 * 10,240, with room for what a continued run adds before it checks again.
 * @default 8000
 */
export const LAYER_HISTORY_LIMIT = 8_000;

/**
 * The most events one target child adds to its parent's history: initiated, started and completed,
 * a workflow task (3 events) for each of the last two, and a search-attribute upsert.
 */
export const EVENTS_PER_CHILD = 10;

/** Events a run still needs once its last target ended: the global part, the record, the hand-over to the next run. */
export const EVENTS_TO_END = 40;

/**
 * Bytes of target results one run of the chain keeps before it continues as new: they cross
 * history once, as the input of the activity that stores them, well under Temporal's 2 MB payload limit.
 * @default 256000
 */
export const CARRY_BYTES = 256_000;

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

/**
 * True when a run whose history has `historyLength` events, with `running` targets in flight,
 * should start no more: another target and everything the run needs to end would pass `limit`.
 * A run always starts at least one target (`started` > 0 first), so a chain always moves on.
 */
export function historyFull(args: { historyLength: number; running: number; started: number; limit: number; suggested: boolean; carriedBytes: number }): boolean {
  if (args.started === 0) return false;
  if (args.suggested || args.carriedBytes >= CARRY_BYTES) return true;
  return args.historyLength + (args.running + 1) * EVENTS_PER_CHILD + EVENTS_TO_END >= args.limit;
}

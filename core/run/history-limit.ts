/**
 * When a run that continues as new stops starting work, so its history stays bounded whatever
 * its size (docs/layers.md#continue-as-new, docs/sheets.md#continue-as-new,
 * docs/roadmaps.md#long-roadmaps). Pure: the workflow sandbox imports it.
 */

/**
 * Events a run's history may reach before it continues as new: under Temporal's warning at
 * 10,240, with room for what a continued run adds before it checks again.
 * @default 8000
 */
export const HISTORY_LIMIT = 8_000;

/**
 * The most events one item of work (a layer's target, a sheet's statement) adds to its run's
 * history: a child's initiated, started and completed, a workflow task (3 events) for each of
 * the last two, and a search-attribute upsert. An activity adds fewer.
 */
export const EVENTS_PER_ITEM = 10;

/**
 * The most events one roadmap task adds to its roadmap's history, from its start to its landing
 * (docs/roadmaps.md#long-roadmaps). Measured on one-phase tasks in
 * test/integration/roadmap/roadmap-continue-as-new.integration.test.ts: 31 for a task that lands at once (a child's
 * three events, two taskUpdate signals, a merge and a memory activity, each with its workflow
 * task, and the upserts the updates make), up to 52 for one behind the base, finalized first (a
 * finalize child and a second merge). Each more phase or wait a task reports adds about five (a
 * signal, its workflow task, an upsert): 80 covers a finalized task with a few of them. Far more
 * than a layer's target or a sheet's statement, so a roadmap reserves its own.
 */
export const EVENTS_PER_ROADMAP_TASK = 80;

/** Events a run still needs once its last item ended: what it does at its end, and the hand-over to the next run. */
const EVENTS_TO_END = 40;

/**
 * Bytes of results one run of a chain keeps before it continues as new: they cross history once,
 * as the input of the activity that stores them, well under Temporal's 2 MB payload limit.
 * @default 256000
 */
export const CARRY_BYTES = 256_000;

/** What a run weighs before it starts one more item. */
export interface HistoryLoad {
  /** Events in the run's history so far. */
  historyLength: number;
  /** Items in flight, and items this run started. */
  running: number;
  started: number;
  limit: number;
  /** Events one item adds to the history. @default EVENTS_PER_ITEM */
  perItem?: number;
  /** Temporal's `continueAsNewSuggested`. */
  suggested: boolean;
  /** Bytes of results the run will hand over. */
  carriedBytes: number;
}

/**
 * True when the run should start no more items: Temporal suggests continuing, the results it holds
 * pass {@link CARRY_BYTES}, or another item and everything the run needs to end would pass `limit`.
 * A run always starts at least one item (`started` > 0 first), so a chain always moves on.
 */
export function historyFull(load: HistoryLoad): boolean {
  if (load.started === 0) return false;
  if (load.suggested || load.carriedBytes >= CARRY_BYTES) return true;
  return load.historyLength + (load.running + 1) * (load.perItem ?? EVENTS_PER_ITEM) + EVENTS_TO_END >= load.limit;
}

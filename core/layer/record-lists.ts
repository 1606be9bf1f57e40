/**
 * A layer run's record as its result and its history carry it: each per-target list cut to its
 * first {@link RESULT_LIST_LIMIT} entries, with how many there were. A night over 50,000 topics
 * listed every target's status in its result, 2 MB, past what Temporal takes for one payload
 * (docs/layers.md#the-run); the record in the store keeps every entry. Pure: the workflow
 * sandbox imports it.
 */
import type { LayerRunRecord } from './layer-types';

/** Entries of each list a layer run's result keeps. */
export const RESULT_LIST_LIMIT = 200;

/** The record's lists that grow with its targets. */
const LISTS = ['targets', 'skipped', 'errors', 'outputs', 'resumable'] as const;

/** How many entries each cut list had. */
type CutLists = Partial<Record<(typeof LISTS)[number], number>>;

/** `record` with every list past the limit cut to its first entries and `cut` saying how many each had; `record` itself when none is. */
export function recordForResult(record: LayerRunRecord): LayerRunRecord {
  const cut: CutLists = {};
  const kept: Partial<LayerRunRecord> = {};
  for (const name of LISTS) {
    const list = record[name];
    if (!list || list.length <= RESULT_LIST_LIMIT) continue;
    cut[name] = list.length;
    (kept as Record<string, unknown>)[name] = list.slice(0, RESULT_LIST_LIMIT);
  }
  return Object.keys(cut).length ? { ...record, ...kept, cut } : record;
}

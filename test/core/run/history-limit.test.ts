import { describe, expect, it } from 'vitest';
import { CARRY_BYTES, EVENTS_PER_ROADMAP_TASK, historyFull, type HistoryLoad } from '../../../core/run/history-limit';

// docs/layers.md#continue-as-new, docs/sheets.md#continue-as-new, docs/roadmaps.md#long-roadmaps
const load = (over: Partial<HistoryLoad>): HistoryLoad => ({ historyLength: 0, running: 0, started: 1, limit: 8_000, suggested: false, carriedBytes: 0, ...over });

describe('historyFull', () => {
  it('lets a run start its first item whatever its history', () => {
    expect(historyFull(load({ started: 0, historyLength: 9_000, suggested: true, carriedBytes: CARRY_BYTES }))).toBe(false);
  });

  it("stops on Temporal's suggestion, or when the results carried pass CARRY_BYTES", () => {
    expect(historyFull(load({ suggested: true }))).toBe(true);
    expect(historyFull(load({ carriedBytes: CARRY_BYTES }))).toBe(true);
  });

  it('reserves room for the items in flight, the next and the end: ten events an item, or what the run says one adds', () => {
    // 7,000 + 12 × 10 + 40 stays under 8,000; with a roadmap task's 80 events an item, 7,000 + 12 × 80 + 40 does not.
    expect(historyFull(load({ historyLength: 7_000, running: 11 }))).toBe(false);
    expect(historyFull(load({ historyLength: 7_000, running: 11, perItem: EVENTS_PER_ROADMAP_TASK }))).toBe(true);
    expect(historyFull(load({ historyLength: 7_000, running: 10, perItem: EVENTS_PER_ROADMAP_TASK }))).toBe(false);
  });
});

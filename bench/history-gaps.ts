import { temporal } from '@temporalio/proto';
import { quantile, round } from './stats';

const { EventType } = temporal.api.enums.v1;
/** One event of a fetched history. */
export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
/** A history timestamp in milliseconds since the epoch (0 when it is missing). */
export const eventTimeMs = (t: HistoryEvent['eventTime']) => Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;
const ms = (e: HistoryEvent) => eventTimeMs(e.eventTime);
const kind = (e: HistoryEvent) => EventType[e.eventType ?? 0].replace('EVENT_TYPE_', '');

/** The `q` quantile (median by default) of the gap between consecutive event kinds (`A→B`), over all steps of all runs. */
export function gaps(histories: HistoryEvent[][], q = 0.5): Record<string, number> {
  const all: Record<string, number[]> = {};
  for (const events of histories) {
    for (let i = 1; i < events.length; i++) (all[`${kind(events[i - 1])}→${kind(events[i])}`] ??= []).push(ms(events[i]) - ms(events[i - 1]));
  }
  return Object.fromEntries(Object.entries(all).filter(([, v]) => v.length >= 5).map(([k, v]) => [k, round(quantile(v, q), 1)]));
}

/** How long each run's first workflow task waited for a worker (scheduled → started; ~0 when the start call handed it over). */
export function firstTaskWaits(histories: HistoryEvent[][]): number[] {
  return histories.flatMap((events) => {
    const i = events.findIndex((e) => e.workflowTaskStartedEventAttributes);
    return i > 0 ? [ms(events[i]) - ms(events[i - 1])] : [];
  });
}

import type { temporal } from '@temporalio/proto';

/**
 * The `turns` each completed `callModel` reported, in history order: undefined for a call that made
 * one turn, the count for one that answered reading turns after its first (docs/performance.md#reading-turns-in-one-call).
 */
export function modelCallTurns(events: readonly temporal.api.history.v1.IHistoryEvent[]): (number | undefined)[] {
  const modelCalls = new Set(events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel').map((e) => String(e.eventId)));
  return events.flatMap((e) => {
    const done = e.activityTaskCompletedEventAttributes;
    if (!done || !modelCalls.has(String(done.scheduledEventId))) return [];
    return [(JSON.parse(Buffer.from(done.result!.payloads![0].data!).toString('utf8')) as { turns?: number }).turns];
  });
}

import type { temporal } from '@temporalio/proto';
import type { ModelCallRecord } from '../../../store/records';
import type { DexStore } from '../../../store/dex-store';

type Event = temporal.api.history.v1.IHistoryEvent;

/**
 * The model calls a layer run made for `topic`, oldest first: a target run as one activity records
 * them under the layer's workflow, a target child workflow under its own (docs/layers.md#where-a-target-runs).
 */
export async function targetModelCalls(store: DexStore, runId: string, topic: string): Promise<ModelCallRecord[]> {
  const calls = [...(await store.listModelCalls(runId)), ...(await store.listModelCalls(`${runId}/${topic}`))];
  return calls.filter((c) => c.taskId === topic);
}

/** The targets a history event starts, if it starts any: a `runLayerTargets` activity's (its input's) or a target child workflow's (its id's last part). */
function targetsOf(e: Event): string[] {
  const scheduled = e.activityTaskScheduledEventAttributes;
  if (scheduled?.activityType?.name === 'runLayerTargets') {
    return (JSON.parse(Buffer.from(scheduled.input!.payloads![0].data!).toString()) as { target: string }[]).map((t) => t.target);
  }
  const child = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
  return child ? [child.slice(child.lastIndexOf('/') + 1)] : [];
}

/** The targets a layer run's history started, in order. */
export const targetsStarted = (events: Event[]): string[] => events.flatMap(targetsOf);

/** How many targets each `runLayerTargets` activity of a history ran, in order. */
export const batchSizes = (events: Event[]): number[] =>
  events.flatMap((e) => (e.activityTaskScheduledEventAttributes?.activityType?.name === 'runLayerTargets' ? [targetsOf(e).length] : []));

/** The most targets a layer run's history had running at once, read from its events in order. */
export function mostTargetsAtOnce(events: Event[]): number {
  const running = new Map<string, number>();
  let most = 0;
  for (const e of events) {
    const started = targetsOf(e).length;
    if (started) {
      running.set(String(e.eventId), started);
      most = Math.max(most, [...running.values()].reduce((a, b) => a + b, 0));
    }
    const activityEnd = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes;
    const childEnd = e.childWorkflowExecutionCompletedEventAttributes ?? e.childWorkflowExecutionFailedEventAttributes;
    const startedBy = activityEnd?.scheduledEventId ?? childEnd?.initiatedEventId;
    if (startedBy) running.delete(String(startedBy));
  }
  return most;
}

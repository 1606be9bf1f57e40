import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

export type Event = temporal.api.history.v1.IHistoryEvent;

/** Every run of the chain under `workflowId` (docs/layers.md#continue-as-new), first to last, each with its history's events. */
export async function chainOf(client: Client, workflowId: string, firstRunId: string): Promise<Event[][]> {
  const runs: Event[][] = [];
  for (let runId: string | undefined = firstRunId; runId; ) {
    const { events } = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    runs.push(events ?? []);
    runId = events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return runs;
}

/** The activities a history scheduled, by type, in order. */
export const activitiesOf = (events: Event[]): string[] => events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);

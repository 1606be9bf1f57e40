/**
 * The next moment a run waits for, read from the server (docs/testing-your-flows.md#how-time-passes):
 * the earliest open durable timer (a retry-map backoff, a gate's deadline) in the run's history and
 * in its running tasks' histories, and the earliest next attempt of an activity backing off (a model
 * call's 529, say). The people-script driver moves the server's clock exactly there and no further,
 * so a gate a remaining answer targets never has its deadline skipped past before the answer is sent.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { RunStatus } from '../../core/run/run-types';
import { statusQuery } from '../../core/run/definitions';
import { QUERY_MS, within } from './within';

const EventType = temporal.api.enums.v1.EventType;
type PendingActivity = temporal.api.workflow.v1.IPendingActivityInfo;
type RetryPolicy = temporal.api.common.v1.IRetryPolicy;

/** What the run waits for next, in server time (ms since the epoch), or why it must not be skipped to. */
type Wake = { at: number } | { held: string } | undefined;

/** True when `waiting` is a gate a remaining answer targets: time must not pass it by. */
type Targeted = (waiting: NonNullable<RunStatus['waitingFor']>) => boolean;

const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined): number =>
  t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0;

/**
 * The earliest wake among `workflowIds`, or `held` when one of them waits at a targeted gate. Each
 * workflow's history is read before its status is asked, so a gate whose deadline timer is seen
 * is seen open too (the timer and the gate start in the same workflow task).
 */
export async function nextWake(client: Client, workflowIds: readonly string[], targeted: Targeted): Promise<Wake> {
  let at = Infinity;
  for (const id of workflowIds) {
    const handle = client.workflow.getHandle(id);
    const [history, described] = await Promise.all([handle.fetchHistory(), handle.describe()]).catch(() => [undefined, undefined] as const);
    if (!history || !described || described.status.name !== 'RUNNING') continue;
    const status = await within(handle.query(statusQuery), QUERY_MS).catch(() => undefined);
    if (status?.waitingFor && targeted(status.waitingFor)) return { held: status.waitingFor.gate };
    const open = new Map<string, number>();
    const policies = new Map<string, RetryPolicy>();
    for (const e of history.events ?? []) {
      if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
        const a = e.activityTaskScheduledEventAttributes!;
        if (a.activityId && a.retryPolicy) policies.set(a.activityId, a.retryPolicy);
      } else if (e.eventType === EventType.EVENT_TYPE_TIMER_STARTED) {
        const a = e.timerStartedEventAttributes!;
        open.set(a.timerId!, ms(e.eventTime) + ms(a.startToFireTimeout));
      } else if (e.eventType === EventType.EVENT_TYPE_TIMER_FIRED) open.delete(e.timerFiredEventAttributes!.timerId!);
      else if (e.eventType === EventType.EVENT_TYPE_TIMER_CANCELED) open.delete(e.timerCanceledEventAttributes!.timerId!);
    }
    for (const t of open.values()) at = Math.min(at, t);
    for (const a of described.raw.pendingActivities ?? []) at = Math.min(at, nextAttemptAt(a, policies) ?? Infinity);
  }
  return Number.isFinite(at) ? { at } : undefined;
}

/**
 * When an activity backing off is tried again: the server's own figure, or, from the time-skipping
 * test server (which gives none), its last attempt's end plus the delay its failure asked for
 * (`retry-after`) or its retry policy's backoff. Undefined while an attempt runs.
 */
function nextAttemptAt(a: PendingActivity, policies: Map<string, RetryPolicy>): number | undefined {
  if (a.nextAttemptScheduleTime) return ms(a.nextAttemptScheduleTime);
  const ended = ms(a.lastAttemptCompleteTime);
  if (!ended || !a.lastFailure || ms(a.lastStartedTime) > ended) return undefined;
  const asked = a.lastFailure.applicationFailureInfo?.nextRetryDelay;
  if (asked) return ended + ms(asked);
  const policy = a.activityId ? policies.get(a.activityId) : undefined;
  if (!policy) return undefined;
  const initial = ms(policy.initialInterval) || 1000;
  const backoff = initial * (policy.backoffCoefficient || 2) ** Math.max(0, (a.attempt ?? 2) - 2);
  return ended + Math.min(backoff, ms(policy.maximumInterval) || 100 * initial);
}

/** The run itself and its running tasks (a roadmap's children), whose timers count as the run's. */
export function runWorkflowIds(rootId: string, status: RunStatus | undefined): string[] {
  const children = (status?.tasks ?? []).filter((t) => t.state !== 'pending' && t.workflowId && t.workflowId !== rootId).map((t) => t.workflowId!);
  return [rootId, ...children];
}

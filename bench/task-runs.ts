import { temporal } from '@temporalio/proto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CassetteLine } from '../core/parsing/cassette';
import { completionTurn, toJsonl, toolTurn } from '../test/support/model/cassette-builder';

type History = temporal.api.history.v1.IHistory;
const { EventType } = temporal.api.enums.v1;

/**
 * A task of `turns` model turns on the sample repository: an edit that fixes `sum`, then one
 * small note written per turn (each turn changes the worktree, as real work does, so the
 * runaway watch stays quiet), then completion.
 */
export function taskCassette(task: string, turns: number): CassetteLine[] {
  const lines = [toolTurn(task, ['edit_file', { path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a + b;' }])];
  for (let turn = 2; turn < turns; turn++) lines.push(toolTurn(task, ['write_file', { path: `notes/turn-${turn}.md`, content: `Turn ${turn}: checked src/math.js.\n` }]));
  lines.push(completionTurn(task, { status: 'complete', summary: 'sum adds' }));
  return lines;
}

/** Writes the cassette of `taskCassette` to `dir` and returns its path (for `llm: { kind: 'replay', path }`). */
export function writeTaskCassette(dir: string, task: string, turns: number): string {
  const path = join(dir, `${task}.jsonl`);
  writeFileSync(path, toJsonl(taskCassette(task, turns)));
  return path;
}

/** The encoded size of a history, as the server stores and sends it. */
export function historyBytes(history: History): number {
  return temporal.api.history.v1.History.encode(history).finish().length;
}

/** Events and encoded bytes per activity type (scheduled + started + completed/failed events), plus workflow-task events. */
export function historyByActivity(history: History): Record<string, { events: number; bytes: number }> {
  const typeOf = new Map<number, string>();
  const out: Record<string, { events: number; bytes: number }> = {};
  for (const event of history.events ?? []) {
    const id = Number(event.eventId);
    let kind: string;
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) {
      kind = scheduled.activityType?.name ?? '?';
      typeOf.set(id, kind);
    } else {
      const ref =
        event.activityTaskStartedEventAttributes?.scheduledEventId ??
        event.activityTaskCompletedEventAttributes?.scheduledEventId ??
        event.activityTaskFailedEventAttributes?.scheduledEventId ??
        event.activityTaskTimedOutEventAttributes?.scheduledEventId;
      kind = ref != null ? (typeOf.get(Number(ref)) ?? '?') : EventType[event.eventType ?? 0].replace('EVENT_TYPE_', '').toLowerCase();
    }
    const entry = (out[kind] ??= { events: 0, bytes: 0 });
    entry.events += 1;
    entry.bytes += temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
  }
  return out;
}

/** How often each activity type was started more than once (a retry after a crash or failure). */
export function activitiesRedone(history: History): { activity: string; attempts: number }[] {
  const typeOf = new Map<number, string>();
  const redone: { activity: string; attempts: number }[] = [];
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) typeOf.set(Number(event.eventId), scheduled.activityType?.name ?? '?');
    const started = event.activityTaskStartedEventAttributes;
    if (started && (started.attempt ?? 1) > 1) {
      redone.push({ activity: typeOf.get(Number(started.scheduledEventId)) ?? '?', attempts: started.attempt ?? 1 });
    }
  }
  return redone;
}

import type { DrivenRun, RunEnd } from '../run/follow-run';
import { planKindOf } from '../plan-kinds';

/** The lines under a finished run's state line; by default what its plan kind reports of its result. */
type EndBody<R> = (end: RunEnd<R>) => string[];

/** What a run's plan kind reports of its result (nothing for a result-less end). */
const kindBody =
  (workflowType: string): EndBody<unknown> =>
  (end) => {
    const kind = planKindOf(workflowType);
    // The workflow type names the kind, so the result is that kind's.
    return kind && end.result ? kind.render(end.result as never) : [];
  };

/** How a run ended, in one line: `ID: failed — why` (the error only when it says more than the state). */
export const endLine = (id: string, end: RunEnd<unknown>): string => `${id}: ${end.state}${end.error && end.error !== end.state ? ` — ${end.error}` : ''}`;

/** A finished run as text: its state and error, then `body` (the kind's report of its result by default). */
export function renderRunEnd<R>(workflowType: string, id: string, end: RunEnd<R>, body: EndBody<R> = kindBody(workflowType)): string {
  return [endLine(id, end), ...body(end)].join('\n');
}

/**
 * The one renderer of a run a command drove (`dex task`, `run`, `layer`, `sheet`, `retry`,
 * `demo`): how it ended, then its Web UI page; detached, that it started and where to watch it.
 */
export function describeDrivenRun<R>(workflowType: string, run: DrivenRun<R>, body?: EndBody<R>): string {
  const page = run.webUi ? [`Web UI: ${run.webUi}`] : [];
  if (!run.end) return [`${run.workflowId} started`, ...page].join('\n');
  return [renderRunEnd(workflowType, run.workflowId, run.end, body), ...page].join('\n');
}

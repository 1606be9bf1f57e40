import type { Client } from '@temporalio/client';
import { retryWorkflowIdPrefix } from '../core/run/ids';
import type { TaskInput } from '../core/task/task-types';
import { RunHistory } from './run-history';
import type { FoundRun } from './run-lookup';

/** How a task run is linked to others by `dex retry`: the run it took up, and the runs that took it up. */
interface RetryLinks {
  retryOf?: { workflowId: string; phase: string };
  retriedAs: string[];
}

/**
 * The retry links of task run `id` (docs/interfaces.md#the-dex-command), both ways: its own input says
 * which run it took up; the runs that took it up are found by their ids (`<id>-retry-<n>`).
 */
export async function retryLinks(client: Client, id: string, run: FoundRun): Promise<RetryLinks> {
  const rewind = (await RunHistory.inputOf<TaskInput>(run.handle))?.rewind;
  const retriedAs: string[] = [];
  const prefix = `${retryWorkflowIdPrefix(id)}-`;
  for await (const w of client.workflow.list({ query: `WorkflowId STARTS_WITH "${prefix}"` })) {
    // Only direct retries: `<id>-retry-2`, not `<id>-retry-2-retry-1`.
    if (/^\d+$/.test(w.workflowId.slice(prefix.length))) retriedAs.push(w.workflowId);
  }
  return { ...(rewind ? { retryOf: { workflowId: rewind.fromWorkflowId, phase: rewind.fromPhase } } : {}), retriedAs: retriedAs.sort() };
}

/** The links as lines for `dex status`. */
export function renderRetryLinks(links: RetryLinks): string[] {
  return [
    ...(links.retryOf ? [`retry of ${links.retryOf.workflowId} from ${links.retryOf.phase}`] : []),
    ...(links.retriedAs.length ? [`retried as ${links.retriedAs.join(', ')}`] : []),
  ];
}

/**
 * The waits of a run a people script may answer (docs/testing-your-flows.md#scripted-people), each
 * with the run that takes the answer. A roadmap shows its tasks' waits as its own and hands their
 * answers on (workflows/roadmap/board.ts); a sheet does neither for its task statements, so their
 * waits are read from, and answered on, the statements' own task runs, which the sheet's status
 * names (`workflowId`) while they run.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { RunStatus } from '../../core/run/run-types';
import { statusQuery } from '../../core/run/definitions';
import { QUERY_MS, within } from './within';

/** What a run waits for, as its `status` says it. */
export type Waiting = NonNullable<RunStatus['waitingFor']>;

/** A wait, and the run the answer to it goes to. */
interface OpenWait {
  waitingFor: Waiting;
  handle: WorkflowHandle;
}

/** A wait's identity: a wait answered is never answered again, and a new wait at the same gate is another one. */
export const waitKey = (w: Waiting): string => `${w.taskId ?? ''}|${w.gate}|${w.since}`;

/** The waits open in `run` now, its own first; `status` is its latest `status` answer. */
export async function openWaits(client: Client, run: WorkflowHandle, status: RunStatus): Promise<OpenWait[]> {
  const own = status.waitingFor ? [{ waitingFor: status.waitingFor, handle: run }] : [];
  if (status.kind !== 'sheet') return own;
  const taskRuns = (status.tasks ?? []).flatMap((t) => (t.workflowId ? [client.workflow.getHandle(t.workflowId)] : []));
  const theirs = await Promise.all(
    taskRuns.map(async (handle) => {
      const waitingFor = (await within(handle.query(statusQuery), QUERY_MS).catch(() => undefined))?.waitingFor;
      return waitingFor ? [{ waitingFor, handle }] : [];
    }),
  );
  return [...own, ...theirs.flat()];
}

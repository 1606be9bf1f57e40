import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { InvalidInput } from '../core/run/invalid-input';
import { statusQuery } from '../core/run/definitions';
import type { RunStatus } from '../core/run/run-types';
import type { AttemptRow } from '../core/task/attempts';
import type { TaskResult } from '../core/task/task-types';
import { runEnd } from './run/follow-run';

/** A run the person named, as the server describes it. */
export interface FoundRun {
  handle: WorkflowHandle;
  running: boolean;
  /** Its workflow type (which plan kind it is). */
  type: string;
  /** Started with --unsafe-no-sandbox (its memo says so). */
  unsandboxed: boolean;
  /** Its title, from its memo (runs the CLI started have one). */
  title?: string;
  startTime: Date;
  /** When it ended; undefined while it runs. */
  closeTime?: Date;
}

/** The run `id` (its latest run); an input error (exit 2) when the server has none by that id. */
export async function findRun(client: Client, id: string): Promise<FoundRun> {
  const handle = client.workflow.getHandle(id);
  try {
    const d = await handle.describe();
    const title = typeof d.memo?.title === 'string' && d.memo.title ? { title: d.memo.title } : {};
    return { handle, running: d.status.name === 'RUNNING', type: d.type, unsandboxed: d.memo?.sandbox === 'off', ...title, startTime: d.startTime, closeTime: d.closeTime };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new InvalidInput(`no run with id ${id}`);
    throw err;
  }
}

/** True while the run has not ended. */
export async function isRunning(handle: WorkflowHandle): Promise<boolean> {
  return (await handle.describe()).status.name === 'RUNNING';
}

/** The status query's answer; an error (exit 1) when no worker answers within a few seconds. */
export async function statusOf(handle: WorkflowHandle): Promise<RunStatus> {
  try {
    return await handle.client.withDeadline(Date.now() + 5_000, () => handle.query(statusQuery));
  } catch (err) {
    throw new Error(`${handle.workflowId}: no worker answered the status query (start one with \`dex worker\`): ${(err as Error).message}`);
  }
}

/** A best-of-N task's attempts (docs/attempts.md): from its status while it runs, from its result once it ended; none for any other run. */
export async function attemptsOfRun(run: Pick<FoundRun, 'handle' | 'running'>): Promise<AttemptRow[]> {
  if (run.running) return (await statusOf(run.handle)).attempts ?? [];
  return (await runEnd<TaskResult>(run.handle)).result?.attempts ?? [];
}

/** Attempt `letter` (either case) of run `id`; an input error (exit 2) naming the letters there are when it has none by that letter. */
export function attemptOf(id: string, rows: AttemptRow[], letter: string): AttemptRow {
  const row = rows.find((r) => r.name === letter.toUpperCase());
  if (row) return row;
  if (!rows.length) throw new InvalidInput(`${id} has no attempts: it is not a best-of-N task (docs/attempts.md)`);
  throw new InvalidInput(`${id} has no attempt "${letter}": its attempts are ${rows.map((r) => r.name).join(', ')}`);
}

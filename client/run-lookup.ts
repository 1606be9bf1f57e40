import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { InvalidInput } from '../core/run/invalid-input';

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

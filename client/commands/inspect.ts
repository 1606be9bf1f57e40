import { WorkflowNotFoundError, type Client, type Connection, type WorkflowHandle } from '@temporalio/client';
import { InvalidInput } from '../../core/invalid-input';
import type { RunStatus } from '../../core/run-types';
import { statusQuery } from '../../workflows/run/definitions';
import { onePositional, parseCommandArgs, type Output } from '../cli-context';
import { connect } from '../connection';
import { followRun, progressLine, runEnd } from '../follow-run';
import { exitCodeFor } from '../drive-task';
import { planKindOf } from '../plan-kinds';
import { renderRunEnd } from '../render-run-end';
import { UNSANDBOXED_WARNING } from '../sandbox-choice';
import { readSettings } from '../settings';

async function existingHandle(
  client: Client,
  id: string,
): Promise<{ handle: WorkflowHandle; running: boolean; type: string; unsandboxed: boolean }> {
  const handle = client.workflow.getHandle(id);
  try {
    const d = await handle.describe();
    return { handle, running: d.status.name === 'RUNNING', type: d.type, unsandboxed: d.memo?.sandbox === 'off' };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new InvalidInput(`no run with id ${id}`);
    throw err;
  }
}

/** The live status of a running run; undefined when no worker answers within a few seconds. */
async function liveStatus(connection: Connection, handle: WorkflowHandle): Promise<RunStatus | undefined> {
  try {
    return await connection.withDeadline(Date.now() + 5_000, () => handle.query(statusQuery));
  } catch {
    return undefined;
  }
}

/** `dex status ID`: the run's state, where it is and what it spent. */
export async function statusCommand(argv: string[], out: Output): Promise<number> {
  const { positionals } = parseCommandArgs(argv, {});
  const id = onePositional(positionals, 'a run id', 'dex status ID');
  const conns = await connect(readSettings(), out.info);
  try {
    const { handle, running, type, unsandboxed } = await existingHandle(conns.client, id);
    if (running) {
      const status = await liveStatus(conns.connection, handle);
      if (!status) {
        out.result(`${id}: running (no worker answered the status query; start one with \`dex worker\`)`, { id, state: 'running' });
        return 0;
      }
      const tasks = (status.tasks ?? []).map((t) => `  ${t.id.padEnd(8)} ${t.state.padEnd(16)} ${t.phase ?? ''}${t.blockedBy ? ` blocked by ${t.blockedBy}` : ''}`);
      out.result([`${id}: ${status.state}`, progressLine(status), ...tasks].join('\n'), { id, ...status });
      return 0;
    }
    const end = await runEnd(handle);
    const mark = unsandboxed ? { sandbox: 'off' } : {};
    out.result([renderRunEnd(type, id, end), ...(unsandboxed ? [UNSANDBOXED_WARNING] : [])].join('\n'), { id, ...end, ...mark });
    return 0;
  } finally {
    await conns.close();
  }
}

/** `dex watch ID`: live progress of a run until it ends. */
export async function watchCommand(argv: string[], out: Output): Promise<number> {
  const { positionals } = parseCommandArgs(argv, {});
  const id = onePositional(positionals, 'a run id', 'dex watch ID');
  const conns = await connect(readSettings(), out.info);
  try {
    const { handle } = await existingHandle(conns.client, id);
    const end = await followRun(handle, out.info);
    out.result(`${id}: ${end.state}${end.error ? ` — ${end.error}` : ''}`, { id, ...end });
    return exitCodeFor(end);
  } finally {
    await conns.close();
  }
}

/** `dex list`: the most recent dex runs. */
export async function listCommand(argv: string[], out: Output): Promise<number> {
  const { values } = parseCommandArgs(argv, { limit: { type: 'string' } });
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new InvalidInput('--limit must be a positive whole number');
  const conns = await connect(readSettings(), out.info);
  try {
    const runs: { id: string; type: string; status: string; started: string }[] = [];
    for await (const wf of conns.client.workflow.list({ pageSize: 100 })) {
      if (!planKindOf(wf.type)) continue;
      runs.push({ id: wf.workflowId, type: wf.type, status: wf.status.name, started: wf.startTime.toISOString() });
      if (runs.length >= limit) break;
    }
    const human = runs.length
      ? runs.map((r) => `${r.started}  ${r.status.padEnd(10)}  ${r.type.padEnd(14)}  ${r.id}`).join('\n')
      : 'no runs yet';
    out.result(human, runs);
    return 0;
  } finally {
    await conns.close();
  }
}

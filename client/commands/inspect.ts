import type { Connection, WorkflowHandle } from '@temporalio/client';
import type { RunStatus } from '../../core/run/run-types';
import { statusQuery } from '../../workflows/run/definitions';
import { onePositional, parseCommandArgs, type Output } from '../cli-context';
import { COMMAND_HELP, usageOf } from '../command-help';
import { followRun, runEnd } from '../run/follow-run';
import { progressLine } from '../run/progress-lines';
import { progressView } from '../run/progress-view';
import { exitCodeFor } from '../run/drive-task';
import { endLine, renderRunEnd } from '../render/render-run-end';
import { UNSANDBOXED_WARNING } from '../run/sandbox-choice';
import { findRun } from '../run-lookup';
import { PLAN_KINDS } from '../plan-kinds';
import { renderRetryLinks, retryLinks } from '../retry-links';
import { readSettings } from '../settings';
import { connectSaying, saysWhileWaiting } from '../run/slow-wait';
import { unclaimedWork, workerWaitNotice } from '../run/worker-starvation';

/** The live status of a running run; undefined when no worker answers within a few seconds. */
async function liveStatus(connection: Connection, handle: WorkflowHandle, say: (line: string) => void): Promise<RunStatus | undefined> {
  try {
    const asked = connection.withDeadline(Date.now() + 5_000, () => handle.query(statusQuery));
    return await saysWhileWaiting(asked, 'waiting for a worker to answer the status query', say);
  } catch {
    return undefined;
  }
}

/** `dex status ID`: the run's state, where it is and what it spent. */
export async function statusCommand(argv: string[], out: Output): Promise<number> {
  const { positionals } = parseCommandArgs(argv, COMMAND_HELP.status.options);
  const id = onePositional(positionals, 'a run id', usageOf('status'));
  const conns = await connectSaying(readSettings(), out.info);
  try {
    const found = await findRun(conns.client, id);
    const { handle, running, type, unsandboxed } = found;
    const links = type === PLAN_KINDS.task.workflowType ? await retryLinks(conns.client, id, found) : undefined;
    const linkLines = links ? renderRetryLinks(links) : [];
    if (running) {
      const status = await liveStatus(conns.connection, handle, out.info);
      if (!status) {
        out.result(`${id}: running (no worker answered the status query; start one with \`dex worker\`)`, { id, state: 'running' });
        return 0;
      }
      const tasks = (status.tasks ?? []).map((t) => `  ${t.id.padEnd(8)} ${t.state.padEnd(16)} ${t.phase ?? ''}${t.blockedBy ? ` blocked by ${t.blockedBy}` : ''}`);
      out.result([`${id}: ${status.state}`, progressLine(status), ...tasks, ...linkLines].join('\n'), { id, ...status, ...links });
      return 0;
    }
    const end = await runEnd(handle);
    const mark = unsandboxed ? { sandbox: 'off' } : {};
    out.result([renderRunEnd(type, id, end), ...linkLines, ...(unsandboxed ? [UNSANDBOXED_WARNING] : [])].join('\n'), { id, ...end, ...mark, ...links });
    return 0;
  } finally {
    await conns.close();
  }
}

/** `dex watch ID`: live progress of a run until it ends. */
export async function watchCommand(argv: string[], out: Output): Promise<number> {
  const { positionals } = parseCommandArgs(argv, COMMAND_HELP.watch.options);
  const id = onePositional(positionals, 'a run id', usageOf('watch'));
  const settings = readSettings();
  const conns = await connectSaying(settings, out.info);
  try {
    const { handle } = await findRun(conns.client, id);
    const { startTime } = await handle.describe();
    const view = progressView(out, startTime.getTime());
    const end = await followRun(handle, view, {
      // Nobody serves the run here: say so while its work waits for a worker.
      onTick: async () => {
        const work = await unclaimedWork(handle);
        view.note(work && work.waitingMs >= 2_000 ? `${workerWaitNotice(work, settings)} — start one with \`dex worker\`` : undefined);
      },
    });
    out.result(endLine(id, end), { id, ...end });
    return exitCodeFor(end);
  } finally {
    await conns.close();
  }
}

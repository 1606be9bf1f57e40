import type { Connection, WorkflowHandle } from '@temporalio/client';
import type { RunStatus } from '../../core/run/run-types';
import { statusQuery } from '../../core/run/definitions';
import { onePositional, parseCommandArgs, type Output } from '../cli-context';
import { COMMAND_HELP, usageOf } from '../command-help';
import { followRun, runEnd } from '../run/follow-run';
import { progressView } from '../run/progress-view';
import { exitCodeFor } from '../run/drive-task';
import { webUiLink } from '../web-ui-links';
import { answersFor } from '../../core/text/answers';
import { renderEndedStatus, renderLiveStatus } from '../render/run-status';
import { endLine } from '../render/render-run-end';
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

/** How long a run's next step may wait for a worker before `dex status` says so. */
const STARVED_NOTICE_MS = 5_000;

/** What `dex status` says of a run whose next step no worker has taken. */
function starvationLine(waitingMs: number): string {
  return (
    `its next step has waited ${Math.round(waitingMs / 1000)}s for a worker: a run started in the foreground goes on under a \`dex worker\` ` +
    'started with the same key and DEX_HOME as its command, a detached one under any `dex worker` of this host'
  );
}

/** `dex status ID`: the run's state, where it is and what it spent. */
export async function statusCommand(argv: string[], out: Output): Promise<number> {
  const { positionals } = parseCommandArgs(argv, COMMAND_HELP.status.options);
  const id = onePositional(positionals, 'a run id', usageOf('status'));
  const settings = readSettings();
  const conns = await connectSaying(settings, out.info);
  try {
    const found = await findRun(conns.client, id);
    const { handle, running, type, unsandboxed, title, startTime, closeTime } = found;
    const links = type === PLAN_KINDS.task.workflowType ? await retryLinks(conns.client, id, found) : undefined;
    const linkLines = links ? renderRetryLinks(links) : [];
    const webUi = webUiLink(settings, id);
    const facts = { title, startTime, closeTime, webUi };
    const about = { ...(title ? { title } : {}), started: startTime.toISOString(), ...(webUi ? { webUi } : {}) };
    if (running) {
      const status = await liveStatus(conns.connection, handle, out.info);
      if (!status) {
        out.result(`${id}: running (no worker answered the status query; start one with \`dex worker\`)`, { id, state: 'running', ...about });
        return 0;
      }
      const answers = status.waitingFor ? { answers: answersFor(id, status.waitingFor.gate) } : {};
      // A run whose next step no worker takes says so, instead of "running" for ever (docs/architecture.md#who-serves-a-run).
      const work = await unclaimedWork(handle);
      const starved = work && work.waitingMs >= STARVED_NOTICE_MS ? { waitingForWorkerMs: work.waitingMs } : {};
      const starvedLines = work && starved.waitingForWorkerMs ? [starvationLine(work.waitingMs)] : [];
      out.result(renderLiveStatus(id, status, facts, [...starvedLines, ...linkLines]), { id, ...status, ...about, ...answers, ...links, ...starved });
      return 0;
    }
    const end = await runEnd(handle);
    const mark = unsandboxed ? { sandbox: 'off' } : {};
    const took = closeTime ? { closed: closeTime.toISOString(), durationMs: closeTime.getTime() - startTime.getTime() } : {};
    const extra = [...linkLines, ...(unsandboxed ? [UNSANDBOXED_WARNING] : [])];
    out.result(renderEndedStatus(type, id, end, facts, extra), { id, ...end, ...about, ...took, ...mark, ...links });
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

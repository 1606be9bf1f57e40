import type { WorkflowHandle } from '@temporalio/client';
import type { Output } from '../cli-context';
import type { Connections } from '../server/connection';
import { followRun, type DrivenRun, type RunEnd } from './follow-run';
import { stopOnSignals } from './interrupt';
import { ensureWorker, startInProcessWorker } from './in-process-worker';
import { PLAN_KINDS, type KindWorkflow, type PlanKindName, type WorkflowArgs, type WorkflowResult } from '../plan-kinds';
import { startMarks, type RunAbout } from './run-about';
import { queuesServed, startWithId, startWithNextId } from './run-handles';
import { withRunIdsInUse } from './run-ids-in-use';
import { UNSANDBOXED_WARNING } from './sandbox-choice';
import { progressView } from './progress-view';
import type { Settings } from '../settings';
import { webUiLink } from '../web-ui-links';
import { connectSaying, saysWhileWaiting } from './slow-wait';
import { unclaimedWork, workerWaitNotice } from './worker-starvation';

/** How long work may wait unclaimed before the command says what it waits for. */
const NOTICE_AFTER_MS = 2_000;
/** How long work may wait unclaimed before this command serves it itself. */
const STARVED_AFTER_MS = 5_000;

/** Exit code for how a run ended (docs/interfaces.md#the-dex-command). */
export function exitCodeFor(end: RunEnd<unknown>): number {
  return end.state === 'completed' ? 0 : 1;
}

/** The queues of a detached run that no worker polls, in words; undefined when both are served. */
async function unservedQueues(conns: Connections, settings: Settings): Promise<string | undefined> {
  const { workflows, activities } = await queuesServed(conns.client, settings);
  const missing = [...(workflows ? [] : [`${settings.taskQueue} (workflows)`]), ...(activities ? [] : [`${settings.hostQueue} (activities)`])];
  return missing.length ? missing.join(' or ') : undefined;
}

/** Which kind of plan to start, under which id (`workflowId`, or `<idPrefix>-<n>` with the first free n), with which arguments. */
export interface RunStart<K extends PlanKindName> {
  kind: K;
  idPrefix?: string;
  workflowId?: string;
  args: WorkflowArgs<KindWorkflow<K>>;
  /** The run in words: its memo `{ title, repo? }` and its static summary (client/run/run-about.ts). */
  about: RunAbout;
  /** The agent's commands run unconfined: said at start, on every progress line and in the Web UI. */
  unsandboxed?: boolean;
  /** A task's repository: a number whose branch `dex/<id>` it still has is not free (client/run/run-ids-in-use.ts). */
  repo?: string;
  /** A task on a forge repository: it runs on a fleet worker, this process being one when no other is (docs/fleet.md). */
  fleet?: boolean;
}

/**
 * Starts a checked run of any plan kind and, unless detached, runs a worker in this
 * process when none polls (or the one that polls does not answer), follows the run's
 * progress on stderr and returns how it ended.
 */
export async function driveRun<K extends PlanKindName>(
  start: RunStart<K>,
  settings: Settings,
  out: Output,
  opts: { detach?: boolean; connections?: Connections; onEnd?: (handle: WorkflowHandle, end: RunEnd<WorkflowResult<KindWorkflow<K>>>) => Promise<void> } = {},
): Promise<DrivenRun<WorkflowResult<KindWorkflow<K>>>> {
  const { workflowType } = PLAN_KINDS[start.kind];
  // Runs carry dex's search attributes: the namespace must have them before the first one starts.
  const conns = opts.connections ?? (await connectSaying(settings, out.info, { forRuns: true }));
  let worker = opts.detach ? undefined : await ensureWorker(conns, settings, out.info, { fleet: start.fleet });
  let stopHandlers: (() => void) | undefined;
  try {
    const marks = startMarks(start.about, start.unsandboxed);
    // Said whatever the flags: with --json too, on stderr.
    if (start.unsandboxed) process.stderr.write(`${UNSANDBOXED_WARNING}\n`);
    // With a workflow worker in this process, the run starts eagerly: the start call's reply carries its first
    // workflow task to that worker, with no trip through the task queue (docs/performance.md).
    const eager = worker?.servesWorkflows === true;
    const starter = eager ? await conns.workerClient() : conns.client;
    const options = { ...marks, requestEagerStart: eager };
    const started = start.workflowId
      ? await startWithId(starter, start.workflowId, workflowType, start.args, settings.taskQueue, options)
      : await withRunIdsInUse(settings, start.repo, (inUse) => startWithNextId(starter, start.idPrefix!, workflowType, start.args, settings.taskQueue, options, inUse));
    const handle = conns.client.workflow.getHandle(started.workflowId);
    const webUi = webUiLink(settings, handle.workflowId);
    out.info(`started ${handle.workflowId}${webUi ? `  ${webUi}` : ''}`);
    if (opts.detach) {
      const unserved = await unservedQueues(conns, settings);
      if (unserved) out.info(`no worker polls ${unserved}: ${handle.workflowId} waits until one does; start one with \`dex worker\``);
      return { workflowId: handle.workflowId, webUi };
    }
    const view = progressView(out, Date.now());
    stopHandlers = stopOnSignals(handle, settings.hostQueue, (line) => view.say(line));
    const end = await followRun<WorkflowResult<KindWorkflow<K>>>(handle, view, {
      onTick: async () => {
        const work = await unclaimedWork(handle);
        view.note(work && work.waitingMs >= NOTICE_AFTER_MS ? workerWaitNotice(work, settings) : undefined);
        if (worker || !work || work.waitingMs < STARVED_AFTER_MS) return;
        view.note(undefined);
        view.say(`no worker took the run's work for ${Math.round(work.waitingMs / 1000)}s: starting one in this process`);
        worker = await saysWhileWaiting(startInProcessWorker(conns, settings), 'starting a worker in this process', (line) => view.say(line));
      },
    });
    // Before the connections close: a recording reads the run's history (client/commands/run.ts).
    await opts.onEnd?.(handle, end);
    return { workflowId: handle.workflowId, end, webUi };
  } finally {
    stopHandlers?.();
    if (worker) await saysWhileWaiting(worker.stop(), 'stopping the worker in this process', out.info);
    if (!opts.connections) await conns.close();
  }
}

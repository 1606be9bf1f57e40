import type { TaskInput } from '../core/types';
import type { Output } from './cli-context';
import { connect, type Connections } from './connection';
import { followRun, type RunEnd } from './follow-run';
import { ensureWorker, startInProcessWorker } from './in-process-worker';
import { isStarved } from './worker-starvation';
import { startWithNextId } from './run-handles';
import { EMBEDDED_UI, type Settings } from './settings';

/** How long work may wait unclaimed before this command serves it itself. */
const STARVED_AFTER_MS = 5_000;

/** Exit code for how a run ended (contract §3). */
export function exitCodeFor(end: RunEnd): number {
  return end.state === 'completed' ? 0 : 1;
}

/** The Web UI page of a run, when dex knows where the UI is. */
export function webUiLink(settings: Settings, workflowId: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const ui = env.TEMPORAL_UI_URL || (settings.address ? undefined : EMBEDDED_UI);
  return ui && `${ui}/namespaces/${settings.namespace}/workflows/${encodeURIComponent(workflowId)}`;
}

/** What a task run produced, for `dex task` and `dex demo`. */
export interface DrivenTask {
  workflowId: string;
  end?: RunEnd;
  webUi?: string;
}

/**
 * Starts a checked task input as a `taskWorkflow` and, unless detached, runs a worker in
 * this process when none polls, follows the run's progress and returns how it ended.
 */
export async function driveTask(
  input: TaskInput,
  repoName: string,
  settings: Settings,
  out: Output,
  opts: { detach?: boolean; connections?: Connections } = {},
): Promise<DrivenTask> {
  const conns = opts.connections ?? (await connect(settings, out.info));
  let worker = opts.detach ? undefined : await ensureWorker(conns, settings, out.info);
  try {
    const handle = await startWithNextId(conns.client, `task-${repoName}-${input.taskId}`, 'taskWorkflow', [input], settings.taskQueue);
    const webUi = webUiLink(settings, handle.workflowId);
    out.info(`started ${handle.workflowId}${webUi ? `  ${webUi}` : ''}`);
    if (opts.detach) return { workflowId: handle.workflowId, webUi };
    const end = await followRun(handle, out.info, {
      onTick: async () => {
        if (worker || !(await isStarved(handle, STARVED_AFTER_MS))) return;
        out.info('the polling worker does not answer: running one in this process');
        worker = await startInProcessWorker(conns, settings);
      },
    });
    return { workflowId: handle.workflowId, end, webUi };
  } finally {
    await worker?.stop();
    if (!opts.connections) await conns.close();
  }
}

/** A finished task as text. */
export function describeTaskEnd(run: DrivenTask): string {
  const { end } = run;
  if (!end) return `${run.workflowId} started${run.webUi ? `\nWeb UI: ${run.webUi}` : ''}`;
  const r = end.result;
  const lines = [`${run.workflowId}: ${end.state}${end.error ? ` — ${end.error}` : ''}`];
  if (r?.commit) lines.push(`commit: ${r.commit} on ${r.branch}`);
  if (r) {
    const t = r.tokens;
    lines.push(`tokens: ${t.input} input, ${t.output} output, ${t.cacheRead} cache read, ${t.cacheWrite} cache write`);
    lines.push(`cost: $${r.costUsd.toFixed(4)} over ${r.turns} model turns`);
  }
  if (run.webUi) lines.push(`Web UI: ${run.webUi}`);
  return lines.join('\n');
}

/**
 * Runs one plan on a time-skipping host to its end, answering its gates as a people script says
 * (docs/testing-your-flows.md#how-time-passes). Time is held to the wall clock and moved on by the
 * driver alone, to the next moment the run waits for: durable timers, gate deadlines and retry
 * backoffs pass at once, no gate's deadline passes before the script answers it, and a gate with no
 * deadline that nobody answers (a budget wait, say) ends the replay named instead of letting the
 * server skip to the run's own timeout.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { RunState, RunStatus } from '../../core/run/run-types';
import type { RoadmapResult } from '../../core/roadmap/roadmap-types';
import { sheetTaskWorkflowId } from '../../core/run/ids';
import { decideUpdate, statusQuery } from '../../core/run/definitions';
import type { ScriptedAnswer } from '../requests/people-script';
import { formatUsd } from '../../core/text/spending';
import type { RunEnd } from '../run/follow-run';
import type { ProgressView } from '../run/progress-view';
import { chainEnd } from './hand-over';
import { nextWake, runWorkflowIds } from './next-wake';
import { openWaits, waitKey, type Waiting } from './open-waits';
import type { TimeSkippingHost } from './time-skipping-host';
import { QUERY_MS, within } from './within';

/** Which workflow to start, under which id, with which arguments. */
export interface PlanStart {
  workflowType: string;
  workflowId: string;
  args: unknown[];
}

/** How a scripted run went. */
export interface ScriptedRun<R = unknown> {
  workflowId: string;
  end: RunEnd<R>;
  /** The run's last status (its cost, tokens, tasks). */
  status?: RunStatus;
  /** The server's time the run took: what it would have taken on a real server with nobody answering early. */
  simulatedMs: number;
  wallMs: number;
  /** What the script answered, one line each, in order. */
  answered: string[];
  /** The script's answers no gate asked for. */
  unused: ScriptedAnswer[];
  /** Set when the run waited at a gate with no answer and no deadline, and was terminated. */
  stuck?: string;
  /** The text of every prompt sent to the model (user messages), in order per transcript. */
  prompts: string[];
}

/** A wait that stays this long (wall time) while time may skip has nothing to skip to: no deadline. */
const STUCK_AFTER_MS = 15_000;
const POLL_MS = 50;

const ENDED = new Set<RunState | 'pending' | 'skipped'>(['completed', 'failed', 'rejected', 'cancelled', 'rolled_back']);

/** The answer as a line: `reject after-verify:test (T2, retry): cover the empty list`, `raise budget to $2.00 (T1)`. */
export const answerLine = (a: ScriptedAnswer, taskId?: string): string =>
  `${a.budgetUsd !== undefined ? `raise ${a.gate} to ${formatUsd(a.budgetUsd)}` : `${a.action} ${a.gate}`}${taskId || a.retry ? ` (${[taskId, a.retry ? 'retry' : ''].filter(Boolean).join(', ')})` : ''}${a.reason ? `: ${a.reason}` : a.note ? `: ${a.note}` : ''}`;

/** Starts `start` on `host`, answers its gates from `answers` and returns how it ended. */
export async function runScripted<R = unknown>(host: TimeSkippingHost, start: PlanStart, answers: readonly ScriptedAnswer[], view?: ProgressView): Promise<ScriptedRun<R>> {
  const wallStart = Date.now();
  await host.skipTime(false);
  const handle = await host.client.workflow.start(start.workflowType, { workflowId: start.workflowId, taskQueue: host.taskQueue, args: start.args });
  const used = new Set<number>();
  const answered: string[] = [];
  /** The waits an answer took (`wait` too: the next answer for that gate is for a later wait). */
  const taken = new Set<string>();
  let done = false;
  // The end of the chain's latest run, not the first run's result(): the test server can leave a
  // run open after handing over (hand-over.ts), and the watch mends that as soon as it sees it.
  const ended = chainEnd<R>(host, start.workflowId).finally(() => (done = true));
  // Queries, answers and the end go to the chain's latest run: a run that continued as new
  // (docs/layers.md#continue-as-new) answers no more, and the test server left a query to it unanswered.
  const latest = host.client.workflow.getHandle(start.workflowId);
  const statusNow = () => within(latest.query(statusQuery), QUERY_MS).catch(() => undefined);
  let status: RunStatus | undefined;
  let wait: { key: string; wall: number; sim: number } | undefined;
  let stuck: string | undefined;
  const names = (a: ScriptedAnswer, w: Waiting) => a.gate === w.gate && (!a.task || a.task === w.taskId);
  // A gate whose status names no task (a task run's own) may be any task's: held, to be safe.
  const targeted = (w: Waiting) =>
    !taken.has(waitKey(w)) && answers.some((a, n) => !used.has(n) && a.action !== 'wait' && a.gate === w.gate && (!a.task || !w.taskId || a.task === w.taskId));

  while (!done) {
    status = (await statusNow()) ?? status;
    if (status) view?.status(status);
    const waits = status && !ENDED.has(status.state) ? await openWaits(host.client, latest, status) : [];
    // A roadmap's view of its task's wait can outlive the wait by a moment (the task tells it when it
    // goes on): a wait already answered is never answered again, and one gone meanwhile keeps its answer.
    const next = waits
      .filter((w) => !taken.has(waitKey(w.waitingFor)))
      .map((w) => ({ w, n: answers.findIndex((a, i) => !used.has(i) && names(a, w.waitingFor)) }))
      .find(({ n }) => n >= 0);
    if (next) {
      const { w, n } = next;
      const answer = answers[n];
      const line = answerLine(answer, w.waitingFor.taskId);
      if (answer.action === 'wait') {
        // Nobody answers this one: its deadline's default acts.
        used.add(n);
        taken.add(waitKey(w.waitingFor));
      } else if (answer.afterMs && (await host.now()) < Date.parse(w.waitingFor.since) + answer.afterMs) {
        // The person answers later (`after:`): time moves on to then, any timer due before it firing.
        await host.skipTo(Date.parse(w.waitingFor.since) + answer.afterMs);
        continue;
      } else {
        // Refused when the wait had just ended: the answer stays for the next one.
        if (await send(w.handle, answer, w.waitingFor.taskId)) {
          used.add(n);
          taken.add(waitKey(w.waitingFor));
          answered.push(line);
          view?.say(`script: ${line}`);
        }
        wait = undefined;
        status = undefined;
        continue;
      }
    }
    // Time is held, and moved on only to the next moment the run waits for (a backoff, a durable
    // timer, the deadline of a gate nobody answers), never past a gate an answer targets
    // (next-wake.ts): no unlocked window for a new gate's deadline to slip through, nor for the
    // server to skip past a gate with no deadline to the run's own timeout.
    const wake = await nextWake(host.client, runWorkflowIds(start.workflowId, status), targeted);
    if (wake && 'at' in wake) await host.skipTo(wake.at);
    const waiting = waits[0]?.waitingFor;
    if (waiting) {
      const key = waitKey(waiting);
      if (wait?.key !== key) wait = { key, wall: Date.now(), sim: await host.now() };
      // Once: the end is seen a moment after the terminate (hand-over.ts watches for it).
      else if (!stuck && Date.now() - wait.wall > STUCK_AFTER_MS && (await host.now()) - wait.sim < 2 * STUCK_AFTER_MS) {
        stuck = stuckAt(waiting);
        await latest.terminate(stuck);
      }
    } else wait = undefined;
    await Promise.race([ended, new Promise((r) => setTimeout(r, POLL_MS))]);
  }
  const end = await ended;
  status = (await statusNow()) ?? status;
  view?.close();
  // From the run's first start to its last run's close, on the server's clock, which goes on after the close.
  const [first, last] = await Promise.all([handle.describe(), latest.describe()]);
  const simulatedMs = (last.closeTime?.getTime() ?? (await host.now())) - first.startTime.getTime();
  const unused = answers.filter((a, n) => !used.has(n));
  const prompts = await promptsOf(host, [start.workflowId, ...childIds(start.workflowId, end.result, status)]);
  return { workflowId: start.workflowId, end, status, simulatedMs, wallMs: Date.now() - wallStart, answered, unused, stuck, prompts };
}

/** Why the run was ended: the wait nobody answers, named as `dex status` names it, and what would answer it. */
function stuckAt(w: Waiting): string {
  const about = [w.taskId && `task ${w.taskId}`, w.reason].filter(Boolean).join(': ');
  const hint = w.gate === 'budget' ? ' (`raiseBudgetUsd: N` in `people` answers it)' : '';
  return `the run waits at gate ${w.gate}${about ? ` (${about})` : ''}, which has no deadline and which the script does not answer${hint}`;
}

/**
 * Sends a scripted answer through the `decide` update, as `dex approve` (`--budget-usd` too) and
 * `dex reject` do; false when the run refused it because nothing waits there any more (the wait it
 * saw had just ended).
 */
async function send(handle: WorkflowHandle, a: ScriptedAnswer, taskId: string | undefined): Promise<boolean> {
  const by = a.by ?? 'people script';
  const args =
    a.action === 'approve' ? { action: 'approve' as const, note: a.note, budgetUsd: a.budgetUsd, by, taskId } : { action: 'reject' as const, reason: a.reason!, retry: a.retry, by, taskId };
  try {
    await handle.executeUpdate(decideUpdate, { args: [args] });
    return true;
  } catch (err) {
    if (/nothing waits/.test(String((err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message))) return false;
    throw err;
  }
}

/** The runs whose prompts count as the run's: a roadmap's tasks, a sheet's statements' task runs (their actions' and undos'). */
function childIds(rootId: string, result: unknown, status: RunStatus | undefined): string[] {
  const tasks = (result as Partial<RoadmapResult> | undefined)?.tasks;
  if (Array.isArray(tasks)) return tasks.map((t) => t.workflowId).filter((id): id is string => !!id);
  if (status?.kind !== 'sheet') return [];
  return (status.tasks ?? []).flatMap((t) => [sheetTaskWorkflowId(rootId, t.id, 'do'), sheetTaskWorkflowId(rootId, t.id, 'undo')]);
}

/** The user messages' text of every transcript the store keeps for `workflowIds`. */
async function promptsOf(host: TimeSkippingHost, workflowIds: string[]): Promise<string[]> {
  const texts: string[] = [];
  const { store } = host.deps;
  for (const id of workflowIds) {
    for (const transcript of await store.listTranscripts(`${id}/`)) {
      for (const message of await store.listMessages(transcript)) {
        if (message.role !== 'user') continue;
        const content = message.content;
        if (typeof content === 'string') texts.push(content);
        else if (Array.isArray(content)) {
          const text = content.filter((b): b is { type: 'text'; text: string } => b?.type === 'text').map((b) => b.text).join('\n');
          if (text) texts.push(text);
        }
      }
    }
  }
  return texts;
}

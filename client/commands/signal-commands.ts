import { WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { ApproveInput, RejectInput, RunStatus } from '../../core/run/run-types';
import { InvalidInput } from '../../core/run/invalid-input';
import { decideUpdate, pauseSignal, resumeSignal, statusQuery, type DecideInput, type DecideResult } from '../../core/run/definitions';
import { onePositional, parseCommandArgs, UsageError, type Output } from '../cli-context';
import { COMMAND_HELP, usageOf } from '../command-help';
import { findRun, statusOf } from '../run-lookup';
import { connectSaying } from '../run/slow-wait';
import { readSettings } from '../settings';

type SignalName = 'approve' | 'reject' | 'pause' | 'resume' | 'cancel';

const USAGE: Record<SignalName, string> = {
  approve: 'dex approve ID [--note TEXT] [--by NAME] [--budget-usd N] [--task TASK]',
  reject: 'dex reject ID --reason TEXT [--retry] [--by NAME] [--task TASK]',
  pause: 'dex pause ID',
  resume: 'dex resume ID',
  cancel: 'dex cancel ID',
};

/** A payload as it goes on the wire: options not given are left out. */
const sent = <T>(payload: T): T => JSON.parse(JSON.stringify(payload)) as T;

/** What a decision did, as the command says it: the gate it passed, and for `reject --retry` that the phase goes round again. */
export function decisionSaid(input: DecideInput, passed: DecideResult): string {
  const gate = `gate "${passed.gate}"${passed.taskId ? ` of task ${passed.taskId}` : ''}`;
  if (input.action === 'approve' && input.choice) return `chose attempt ${input.choice} at ${gate}: it lands`;
  if (input.action === 'approve') return `approved ${gate}`;
  return `rejected ${gate}${input.retry ? ': retrying: its phase runs again with the reason as context (while retries last)' : ''}`;
}

/** What `pause` does to a run in `status` (docs/interfaces.md#people-in-the-loop); undefined status: no worker answered. */
export function pauseSaid(workflowId: string, status: RunStatus | undefined): string {
  const resume = `dex resume ${workflowId} lets it go on`;
  if (status?.waitingFor) return `paused: it still waits at gate "${status.waitingFor.gate}"; once that is answered it stops before its next step (${resume})`;
  return `paused: it stops after its current step (${resume})`;
}

/**
 * Sends a decision through the validated `decide` update: the answer names the gate it passed,
 * and a run that waits for nothing refuses it (exit 2 with its reason).
 */
async function decide(handle: WorkflowHandle, input: DecideInput): Promise<string> {
  try {
    return decisionSaid(input, await handle.executeUpdate(decideUpdate, { args: [sent(input)] }));
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) throw new InvalidInput(`${handle.workflowId}: ${err.cause?.message ?? err.message}`);
    throw err;
  }
}

/** `dex approve|reject|pause|resume|cancel ID`: a decision at a gate, or the signal (or the cancellation) to a run. */
export async function signalCommand(name: SignalName, argv: string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    note: { type: 'string' },
    by: { type: 'string' },
    reason: { type: 'string' },
    'budget-usd': { type: 'string' },
    task: { type: 'string' },
    retry: { type: 'boolean' },
  });
  const id = onePositional(positionals, 'a run id', USAGE[name]);
  let payload: ApproveInput | RejectInput | Record<string, never> = {};
  let send: (handle: WorkflowHandle) => Promise<string>;
  const taskId = values.task ? { taskId: values.task } : {};
  if (name === 'approve') {
    const budget = values['budget-usd'] === undefined ? undefined : Number(values['budget-usd']);
    if (budget !== undefined && !(budget > 0)) throw new InvalidInput('--budget-usd must be a positive number');
    const approve: ApproveInput = { note: values.note, by: values.by, budgetUsd: budget, ...taskId };
    payload = approve;
    send = (handle) => decide(handle, { action: 'approve', ...approve });
  } else if (name === 'reject') {
    if (!values.reason?.trim()) throw new InvalidInput(`a reason is required: ${USAGE.reject}`);
    const reject: RejectInput = { reason: values.reason, by: values.by, ...(values.retry ? { retry: true } : {}), ...taskId };
    payload = reject;
    send = (handle) => decide(handle, { action: 'reject', ...reject });
  } else if (name === 'pause') {
    send = async (handle) => {
      // Asked first: whether it waits at a gate says when the pause takes effect.
      const status = await handle.client.withDeadline(Date.now() + 3_000, () => handle.query(statusQuery)).catch(() => undefined);
      await handle.signal(pauseSignal, {});
      return pauseSaid(handle.workflowId, status);
    };
  } else if (name === 'resume') {
    send = async (handle) => (await handle.signal(resumeSignal, {}), 'resume sent');
  } else {
    send = async (handle) => (await handle.cancel(), 'cancellation sent');
  }
  const settings = readSettings();
  const conns = await connectSaying(settings, out.info);
  try {
    const handle = conns.client.workflow.getHandle(id);
    let status: string;
    try {
      status = (await handle.describe()).status.name;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new InvalidInput(`no run with id ${id}`);
      throw err;
    }
    if ((name === 'approve' || name === 'reject') && status !== 'RUNNING') {
      throw new InvalidInput(`${id}: nothing waits: the run has ended (${status.toLowerCase()})`);
    }
    const said = await send(handle);
    out.result(`${id}: ${said}`, { id, sent: name, payload, result: said });
    return 0;
  } finally {
    await conns.close();
  }
}

/** Why attempt `letter` cannot be chosen for the task whose status is `task`; undefined when it can (docs/attempts.md#the-choose-gate). */
export function choiceProblem(task: Pick<RunStatus, 'waitingFor' | 'attempts'>, letter: string): string | undefined {
  const gate = task.waitingFor?.gate;
  if (gate !== 'choose') return `it does not wait at gate "choose" (${gate ? `it waits at gate "${gate}": dex approve or dex reject answers it` : 'it waits at no gate'})`;
  const completed = (task.attempts ?? []).filter((r) => r.state === 'completed').map((r) => r.name);
  if (completed.includes(letter)) return undefined;
  const row = task.attempts?.find((r) => r.name === letter);
  return `attempt ${letter} is not one of its completed attempts (${completed.join(', ') || 'none completed'}${row ? `; ${letter} is ${row.state}` : ''})`;
}

/** `dex choose ID ATTEMPT`: lands attempt ATTEMPT of a best-of-N task waiting at its `choose` gate, or of a roadmap's task that waits there. */
export async function chooseCommand(argv: string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, COMMAND_HELP.choose.options);
  if (positionals.length !== 2) throw new UsageError(`expected a run id and an attempt's letter: ${usageOf('choose')}`);
  const [id, given] = positionals;
  if (!/^[A-Za-z]$/.test(given)) throw new UsageError(`an attempt is one letter (A, B, …), not "${given}": ${usageOf('choose')}`);
  const letter = given.toUpperCase();
  const conns = await connectSaying(readSettings(), out.info);
  try {
    const run = await findRun(conns.client, id);
    if (!run.running) throw new InvalidInput(`${id}: nothing waits: the run has ended`);
    const status = await statusOf(run.handle);
    // A roadmap passes the decision on to its task (the one named, else the one that waits), whose status has the attempts.
    const taskId = status.kind === 'roadmap' ? (values.task ?? status.waitingFor?.taskId) : undefined;
    const child = taskId ? status.tasks?.find((t) => t.id === taskId)?.workflowId : undefined;
    if (status.kind === 'roadmap' && !child) throw new InvalidInput(`${id}: ${taskId ? `no running task ${taskId}` : 'nothing waits: no task waits at a gate'}`);
    const problem = choiceProblem(child ? await statusOf(conns.client.workflow.getHandle(child)) : status, letter);
    if (problem) throw new InvalidInput(`${id}${taskId ? ` (task ${taskId})` : ''}: ${problem}`);
    const input: DecideInput = { action: 'approve', choice: letter, by: values.by, note: values.note, ...(taskId ? { taskId } : {}) };
    const said = await decide(run.handle, input);
    out.result(`${id}: ${said}`, { id, sent: 'choose', payload: sent(input), result: said });
    return 0;
  } finally {
    await conns.close();
  }
}

import { WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { ApproveInput, RejectInput } from '../../core/run/run-types';
import { InvalidInput } from '../../core/run/invalid-input';
import { decideUpdate, pauseSignal, resumeSignal, type DecideInput } from '../../workflows/run/definitions';
import { onePositional, parseCommandArgs, type Output } from '../cli-context';
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

/**
 * Sends a decision through the validated `decide` update: the answer names the gate it passed,
 * and a run that waits for nothing refuses it (exit 2 with its reason).
 */
async function decide(handle: WorkflowHandle, input: DecideInput): Promise<string> {
  try {
    const passed = await handle.executeUpdate(decideUpdate, { args: [sent(input)] });
    return `${input.action === 'approve' ? 'approved' : 'rejected'} gate "${passed.gate}"${passed.taskId ? ` of task ${passed.taskId}` : ''}`;
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
    send = async (handle) => (await handle.signal(pauseSignal, {}), 'pause sent');
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

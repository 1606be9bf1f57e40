import { WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import type { ApproveInput, RejectInput } from '../../core/run-types';
import { InvalidInput } from '../../core/invalid-input';
import { approveSignal, pauseSignal, rejectSignal, resumeSignal } from '../../workflows/run/definitions';
import { onePositional, parseCommandArgs, type Output } from '../cli-context';
import { connect } from '../connection';
import { readSettings } from '../settings';

type SignalName = 'approve' | 'reject' | 'pause' | 'resume' | 'cancel';

const USAGE: Record<SignalName, string> = {
  approve: 'dex approve ID [--note TEXT] [--by NAME] [--budget-usd N]',
  reject: 'dex reject ID --reason TEXT [--by NAME]',
  pause: 'dex pause ID',
  resume: 'dex resume ID',
  cancel: 'dex cancel ID',
};

/** A payload as it goes on the wire: options not given are left out. */
const sent = <T>(payload: T): T => JSON.parse(JSON.stringify(payload)) as T;

/** `dex approve|reject|pause|resume|cancel ID`: sends the signal (or the cancellation) to a run. */
export async function signalCommand(name: SignalName, argv: string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    note: { type: 'string' },
    by: { type: 'string' },
    reason: { type: 'string' },
    'budget-usd': { type: 'string' },
  });
  const id = onePositional(positionals, 'a run id', USAGE[name]);
  let payload: ApproveInput | RejectInput | Record<string, never> = {};
  let send: (handle: WorkflowHandle) => Promise<unknown>;
  if (name === 'approve') {
    const budget = values['budget-usd'] === undefined ? undefined : Number(values['budget-usd']);
    if (budget !== undefined && !(budget > 0)) throw new InvalidInput('--budget-usd must be a positive number');
    const approve: ApproveInput = { note: values.note, by: values.by, budgetUsd: budget };
    payload = approve;
    send = (handle) => handle.signal(approveSignal, sent(approve));
  } else if (name === 'reject') {
    if (!values.reason?.trim()) throw new InvalidInput(`a reason is required: ${USAGE.reject}`);
    const reject: RejectInput = { reason: values.reason, by: values.by };
    payload = reject;
    send = (handle) => handle.signal(rejectSignal, sent(reject));
  } else if (name === 'pause') {
    send = (handle) => handle.signal(pauseSignal, {});
  } else if (name === 'resume') {
    send = (handle) => handle.signal(resumeSignal, {});
  } else {
    send = (handle) => handle.cancel();
  }
  const settings = readSettings();
  const conns = await connect(settings, out.info);
  try {
    const handle = conns.client.workflow.getHandle(id);
    try {
      await handle.describe();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new InvalidInput(`no run with id ${id}`);
      throw err;
    }
    await send(handle);
    out.result(`${name === 'cancel' ? 'cancellation' : name} sent to ${id}`, { id, sent: name, payload });
    return 0;
  } finally {
    await conns.close();
  }
}

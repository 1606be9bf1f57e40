import { WorkflowNotFoundError } from '@temporalio/client';
import type { ApproveInput, RejectInput } from '../../core/types';
import { onePositional, parseCommandArgs, type Output } from '../cli-context';
import { connect } from '../connection';
import { InputError } from '../input-error';
import { readSettings } from '../settings';

type SignalName = 'approve' | 'reject' | 'pause' | 'resume' | 'cancel';

const USAGE: Record<SignalName, string> = {
  approve: 'dex approve ID [--note TEXT] [--by NAME] [--budget-usd N]',
  reject: 'dex reject ID --reason TEXT [--by NAME]',
  pause: 'dex pause ID',
  resume: 'dex resume ID',
  cancel: 'dex cancel ID',
};

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
  if (name === 'approve') {
    const budget = values['budget-usd'] === undefined ? undefined : Number(values['budget-usd']);
    if (budget !== undefined && !(budget > 0)) throw new InputError('--budget-usd must be a positive number');
    payload = { note: values.note, by: values.by, budgetUsd: budget };
  } else if (name === 'reject') {
    if (!values.reason?.trim()) throw new InputError(`a reason is required: ${USAGE.reject}`);
    payload = { reason: values.reason, by: values.by };
  }
  const settings = readSettings();
  const conns = await connect(settings, out.info);
  try {
    const handle = conns.client.workflow.getHandle(id);
    try {
      await handle.describe();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new InputError(`no run with id ${id}`);
      throw err;
    }
    if (name === 'cancel') await handle.cancel();
    else await handle.signal(name, JSON.parse(JSON.stringify(payload)));
    out.result(`${name === 'cancel' ? 'cancellation' : name} sent to ${id}`, { id, sent: name, payload });
    return 0;
  } finally {
    await conns.close();
  }
}

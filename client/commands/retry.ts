import { onePositional, parseCommandArgs, UsageError, type Output } from '../cli-context';
import { COMMAND_HELP, usageOf } from '../command-help';
import { describeTaskEnd } from '../render/task-end';
import { buildRetryInput } from '../requests/retry-request';
import { commandSettings } from '../run-queues';
import { connectSaying } from '../run/slow-wait';
import { driveTask, exitCodeFor } from '../run/drive-task';
import { repoNameOf } from '../../core/run/ids';

/** `dex retry ID --from PHASE [--note TEXT]`: a new run of an ended task from the checkpoint before PHASE. */
export async function retryCommand(argv: string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, COMMAND_HELP.retry.options);
  const id = onePositional(positionals, 'a task run id', usageOf('retry'));
  if (!values.from?.trim()) throw new UsageError(`--from PHASE is required: ${usageOf('retry')}`);
  const settings = commandSettings(values.detach);
  const conns = await connectSaying(settings, out.info, { forRuns: true });
  try {
    const input = await buildRetryInput(conns.client, { id, from: values.from.trim(), note: values.note }, settings);
    const run = await driveTask(input, repoNameOf(input.repoPath), settings, out, { detach: values.detach, connections: conns });
    out.result(describeTaskEnd(run), { workflowId: run.workflowId, retryOf: { workflowId: id, phase: values.from }, ...run.end, webUi: run.webUi });
    return run.end ? exitCodeFor(run.end) : 0;
  } finally {
    await conns.close();
  }
}

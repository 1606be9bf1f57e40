import type { Client, WorkflowHandle } from '@temporalio/client';
import { taskBranch } from '../../core/run/ids';
import { InvalidInput } from '../../core/run/invalid-input';
import type { TaskInput, TaskResult, Worktree } from '../../core/task/task-types';
import { onePositional, parseCommandArgs, type Output } from '../cli-context';
import { COMMAND_HELP, usageOf } from '../command-help';
import { runEnd } from '../run/follow-run';
import { PLAN_KINDS } from '../plan-kinds';
import { RunHistory } from '../run-history';
import { findRun, isRunning } from '../run-lookup';
import { readSettings } from '../settings';
import { connectSaying } from '../run/slow-wait';
import { renderTaskChanges, taskChanges, type TaskChanges } from '../render/task-diff';

/** One task's changes, or why there are none to show. */
type TaskDiff = { workflowId: string } & (TaskChanges | { none: string });

/** Task `workflowId`'s changes: where they are comes from its input, its result and its prepared worktree (in its history). */
async function diffOfTask(handle: WorkflowHandle, workflowId: string): Promise<TaskDiff> {
  const history = await RunHistory.of(handle);
  const input = history.input<TaskInput>();
  if (!input) return { workflowId, none: 'its input is not in its history' };
  const worktree = history.activityResult<Worktree>('prepareWorktree');
  const result = (await isRunning(handle)) ? undefined : (await runEnd<TaskResult>(handle)).result;
  const baseSha = result?.baseSha ?? worktree?.baseSha;
  if (!baseSha) return { workflowId, none: 'it has not made its branch yet' };
  const changes = taskChanges({
    repoPath: input.repoPath,
    branch: result?.branch ?? worktree?.branch ?? taskBranch(workflowId),
    baseSha,
    commit: result?.commit,
    worktreePath: result?.worktreePath ?? worktree?.path,
  });
  return { workflowId, ...changes };
}

/** The tasks whose changes `dex diff` shows for run `id` of workflow type `type`: itself, or a roadmap's tasks. */
async function tasksOf(client: Client, handle: WorkflowHandle, id: string, type: string): Promise<{ workflowId: string; handle: WorkflowHandle }[]> {
  if (type === PLAN_KINDS.task.workflowType) return [{ workflowId: id, handle }];
  if (type !== PLAN_KINDS.roadmap.workflowType) throw new InvalidInput(`${id} is not a task or a roadmap: only those change a repository`);
  return (await RunHistory.of(handle)).children().map((workflowId) => ({ workflowId, handle: client.workflow.getHandle(workflowId) }));
}

/** `dex diff ID`: what a task (or each task of a roadmap) changed against the commit it started from. */
export async function diffCommand(argv: string[], out: Output): Promise<number> {
  const { positionals } = parseCommandArgs(argv, COMMAND_HELP.diff.options);
  const id = onePositional(positionals, 'a run id', usageOf('diff'));
  const conns = await connectSaying(readSettings(), out.info);
  try {
    const run = await findRun(conns.client, id);
    const diffs: TaskDiff[] = [];
    for (const task of await tasksOf(conns.client, run.handle, id, run.type)) diffs.push(await diffOfTask(task.handle, task.workflowId));
    const human = diffs.length
      ? diffs.map((d) => ('none' in d ? `# ${d.workflowId}: no changes to show (${d.none})` : renderTaskChanges(d.workflowId, d))).join('\n')
      : `${id} has started no task yet`;
    out.result(human, { id, diffs });
    return 0;
  } finally {
    await conns.close();
  }
}

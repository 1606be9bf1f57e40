import type { Client, WorkflowHandle } from '@temporalio/client';
import { taskBranch } from '../../core/run/ids';
import { InvalidInput } from '../../core/run/invalid-input';
import type { TaskInput, TaskResult, Worktree } from '../../core/task/task-types';
import { parseCommandArgs, UsageError, type Output } from '../cli-context';
import { COMMAND_HELP, usageOf } from '../command-help';
import { runEnd } from '../run/follow-run';
import { PLAN_KINDS } from '../plan-kinds';
import { RunHistory } from '../run-history';
import { attemptOf, attemptsOfRun, findRun, isRunning, type FoundRun } from '../run-lookup';
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

/**
 * Attempt `letter` of best-of-N task `id` (docs/attempts.md): its branch against the commit it
 * started from, as its row says once it ended; while it runs (no base in its row yet), as the
 * attempt's own run has it, with its worktree's uncommitted changes.
 */
async function diffOfAttempt(client: Client, run: FoundRun, id: string, letter: string): Promise<TaskDiff> {
  if (run.type !== PLAN_KINDS.task.workflowType) throw new InvalidInput(`${id} is not a task: only a best-of-N task has attempts`);
  const row = attemptOf(id, await attemptsOfRun(run), letter);
  if (!row.baseSha || !row.branch) return diffOfTask(client.workflow.getHandle(row.workflowId), row.workflowId);
  const input = (await RunHistory.of(run.handle)).input<TaskInput>();
  if (!input) return { workflowId: row.workflowId, none: 'its input is not in its history' };
  return { workflowId: row.workflowId, ...taskChanges({ repoPath: input.repoPath, branch: row.branch, baseSha: row.baseSha, commit: row.commit }) };
}

/** `dex diff ID [ATTEMPT]`: what a task (or each task of a roadmap, or one attempt of a best-of-N task) changed against the commit it started from. */
export async function diffCommand(argv: string[], out: Output): Promise<number> {
  const { positionals } = parseCommandArgs(argv, COMMAND_HELP.diff.options);
  if (positionals.length < 1 || positionals.length > 2) throw new UsageError(`expected a run id, and an attempt's letter or nothing: ${usageOf('diff')}`);
  const [id, letter] = positionals;
  if (letter !== undefined && !/^[A-Za-z]$/.test(letter)) throw new UsageError(`an attempt is one letter (A, B, …), not "${letter}": ${usageOf('diff')}`);
  const conns = await connectSaying(readSettings(), out.info);
  try {
    const run = await findRun(conns.client, id);
    const diffs: TaskDiff[] = [];
    if (letter) diffs.push(await diffOfAttempt(conns.client, run, id, letter));
    else for (const task of await tasksOf(conns.client, run.handle, id, run.type)) diffs.push(await diffOfTask(task.handle, task.workflowId));
    const human = diffs.length
      ? diffs.map((d) => ('none' in d ? `# ${d.workflowId}: no changes to show (${d.none})` : renderTaskChanges(d.workflowId, d))).join('\n')
      : `${id} has started no task yet`;
    out.result(human, { id, ...(letter ? { attempt: letter.toUpperCase() } : {}), diffs });
    return 0;
  } finally {
    await conns.close();
  }
}

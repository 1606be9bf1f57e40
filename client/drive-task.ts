import { taskWorkflowIdPrefix } from '../core/ids';
import type { TaskInput, TaskResult } from '../core/task-types';
import type { Output } from './cli-context';
import type { Connections } from './connection';
import { driveRun, type DrivenRun } from './drive-run';
import { taskAbout } from './run-about';
import type { Settings } from './settings';

export { exitCodeFor } from './drive-run';

/** Starts a checked task input as a task run (see driveRun). */
export function driveTask(
  input: TaskInput,
  repoName: string,
  settings: Settings,
  out: Output,
  opts: { detach?: boolean; connections?: Connections } = {},
): Promise<DrivenRun<TaskResult>> {
  return driveRun(
    {
      kind: 'task',
      idPrefix: taskWorkflowIdPrefix(repoName, input.taskId),
      args: [input],
      about: taskAbout(input),
      unsandboxed: input.sandbox?.mode === 'off',
    },
    settings,
    out,
    opts,
  );
}


import { retryWorkflowIdPrefix, taskWorkflowIdPrefix } from '../../core/run/ids';
import type { TaskInput, TaskResult } from '../../core/task/task-types';
import type { Output } from '../cli-context';
import type { Connections } from '../server/connection';
import { driveRun } from './drive-run';
import type { DrivenRun } from './follow-run';
import { retryAbout, taskAbout } from './run-about';
import type { Settings } from '../settings';

export { exitCodeFor } from './drive-run';

/**
 * Starts a checked task input as a task run (see driveRun): `<prefix>-<n>`, or, for a rewound
 * task (`dex retry ID --from PHASE`), `<ID>-retry-<n>` with an about naming the run it takes up.
 */
export function driveTask(
  input: TaskInput,
  repoName: string,
  settings: Settings,
  out: Output,
  opts: { detach?: boolean; connections?: Connections } = {},
): Promise<DrivenRun<TaskResult>> {
  const rewind = input.rewind;
  return driveRun(
    {
      kind: 'task',
      idPrefix: rewind ? retryWorkflowIdPrefix(rewind.fromWorkflowId) : taskWorkflowIdPrefix(repoName, input.taskId),
      args: [input],
      about: rewind ? retryAbout(input, rewind.fromWorkflowId, rewind.fromPhase) : taskAbout(input),
      unsandboxed: input.sandbox?.mode === 'off',
      // A forge repository's task: no checkout here whose branches a new id could collide with.
      ...(input.repo ? { fleet: true } : { repo: input.repoPath }),
    },
    settings,
    out,
    opts,
  );
}

import { parseCommandArgs, UsageError, type Output } from '../cli-context';
import { COMMAND_HELP, usageOf } from '../command-help';
import type * as DriveTask from '../run/drive-task';
import { describeTaskEnd } from '../render/task-end';
import { finishRecording, startRecording } from '../requests/replay-test-record';
import { commandSettings } from '../run-queues';
import { buildTaskInput, checkTaskRequest } from '../requests/task-request';
import { checkForgeRepository } from '../fleet/forge-repo-check';
import { forgeTaskConfig } from '../fleet/forge-task-source';

/** `dex task "TITLE"`: one task on a repository, checked before anything starts. */
export async function taskCommand(argv: string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, COMMAND_HELP.task.options);
  if (positionals.length > 1) throw new UsageError(`one title expected (quote it): ${usageOf('task')}`);
  // A forge repository is checked (token, existence) before the local request's checks, which read a folder.
  const onForge = await checkForgeRepository(values.repo);
  const settings = commandSettings(values.detach);
  // Bad input stops before the mirror is made: nothing left behind.
  if (onForge) checkTaskRequest({ title: positionals[0] ?? '', weight: values.weight, attempts: values.attempts, llm: values.llm });
  const forge = onForge ? { repo: onForge, config: await forgeTaskConfig(onForge, settings.dexHome) } : undefined;
  const { input, repoName } = buildTaskInput(
    {
      forge,
      title: positionals[0] ?? '',
      description: values.description,
      repo: values.repo,
      weight: values.weight,
      attempts: values.attempts,
      llm: values.llm,
      unsafeNoSandbox: values['unsafe-no-sandbox'],
    },
    settings,
  );
  // Loaded only once the input is known to be good: bad input answers without loading the SDK.
  const { driveTask, exitCodeFor } = require('../run/drive-task') as typeof DriveTask;
  const task = { title: input.title, description: input.description, weight: values.weight, ...(values.attempts ? { attempts: values.attempts } : {}) };
  const recording = startRecording(input.llm, values.detach, { kind: 'task', repo: input.repoPath, task }, out.info);
  const run = await driveTask(input, repoName, settings, out, { detach: values.detach });
  if (recording && run.end) finishRecording(recording, run.workflowId, run.end);
  out.result(describeTaskEnd(run), { workflowId: run.workflowId, ...run.end, webUi: run.webUi });
  return run.end ? exitCodeFor(run.end) : 0;
}

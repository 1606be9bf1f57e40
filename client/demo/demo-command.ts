import { join, resolve } from 'node:path';
import { parseOptionsOnly, type Output } from '../cli-context';
import type * as DriveTask from '../run/drive-task';
import { describeTaskEnd } from '../render/task-end';
import { DEMO_TASK, createSampleRepo } from './sample-repo';
import { newDemoRepoPath } from './demo-repos';
import { sandboxForRun } from '../run/sandbox-choice';
import { commandSettings } from '../run-queues';
import { buildTaskInput } from '../requests/task-request';

/** The bundled cassette: the demo runs the same way on every machine, without a key. */
export const DEMO_CASSETTE = join(__dirname, 'demo.cassette.jsonl');

/** `dex demo`: makes a sample repository with a failing test and fixes it through a real taskWorkflow. */
export async function demoCommand(argv: string[], out: Output): Promise<number> {
  const values = parseOptionsOnly(argv, 'demo');
  const settings = commandSettings(false);
  // A repository of its own making is recorded for `dex clean`; one in --dir is the person's.
  const dir = values.dir ? resolve(values.dir) : newDemoRepoPath(settings.dexHome);
  createSampleRepo(dir);
  out.info(`sample repository with a failing test: ${dir}`);
  // The demo's commands are its own, so it may run without a sandbox, but says so loudly.
  const available = sandboxForRun();
  if (!available.ok) out.info(`WARNING: ${available.why.replace(/, or pass.*$/, '')}; the demo runs its own commands without one`);
  const { input, repoName } = buildTaskInput(
    { ...DEMO_TASK, repo: dir, llm: `replay:${DEMO_CASSETTE}`, unsafeNoSandbox: !available.ok },
    settings,
  );
  // Loaded only once the input is known to be good: bad input answers without loading the SDK.
  const { driveTask, exitCodeFor } = require('../run/drive-task') as typeof DriveTask;
  const run = await driveTask(input, repoName, settings, out);
  out.result(describeTaskEnd(run), { workflowId: run.workflowId, repo: dir, ...run.end, webUi: run.webUi });
  return run.end ? exitCodeFor(run.end) : 0;
}

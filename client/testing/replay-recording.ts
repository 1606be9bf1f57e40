/**
 * `dex replay-test` on the time-skipping server (docs/testing-your-flows.md): the recorded task or
 * roadmap started again on a copy of its repository, with the cassette as the model and a worker
 * that runs every activity for real, its gates answered by a people script or left to their
 * deadlines.
 */
import { join } from 'node:path';
import { InvalidInput } from '../../core/run/invalid-input';
import { numberedWorkflowId, taskWorkflowIdPrefix } from '../../core/run/ids';
import type { ActivityDeps } from '../../activities';
import type { Output } from '../cli-context';
import { PLAN_KINDS } from '../plan-kinds';
import type { ScriptedAnswer } from '../requests/people-script';
import type { RecordedRun } from '../requests/replay-test-record';
import { buildRoadmapInput } from '../requests/roadmap-request';
import { buildTaskInput } from '../requests/task-request';
import { progressView } from '../run/progress-view';
import type { Settings } from '../settings';
import { runScripted, type PlanStart, type ScriptedRun } from './scripted-run';
import { startTimeSkippingHost, testHostQueue, TEST_TASK_QUEUE } from './time-skipping-host';

/** The settings a replay's input is built with: the host's queues, its own DEX_HOME. */
export function timeSkippingSettings(settings: Settings, dexHome: string): Settings {
  return { ...settings, taskQueue: TEST_TASK_QUEUE, hostQueue: testHostQueue(TEST_TASK_QUEUE), dexHome };
}

/** What starts the recorded run again on `copy`, checked (InvalidInput before anything starts). */
export function recordedPlanStart(recorded: RecordedRun, copy: string, llm: string, unsafeNoSandbox: boolean | undefined, settings: Settings): PlanStart {
  if (recorded.kind === 'task') {
    const { title, description, weight, attempts } = recorded.task!;
    const { input, repoName } = buildTaskInput({ title, description, weight, attempts, repo: copy, llm, unsafeNoSandbox }, settings);
    return { workflowType: PLAN_KINDS.task.workflowType, workflowId: numberedWorkflowId(taskWorkflowIdPrefix(repoName, input.taskId), 1), args: [input] };
  }
  if (!recorded.roadmap) throw new InvalidInput('the recording names no roadmap');
  // A landing through pull requests goes to the landing the recording had, its forge played back: no token, no forge.
  const pullRequest = recorded.forge?.landing;
  const checked = buildRoadmapInput({ roadmap: join(copy, recorded.roadmap), repo: copy, llm, unsafeNoSandbox, pullRequest }, settings);
  return { workflowType: PLAN_KINDS.roadmap.workflowType, workflowId: checked.workflowId, args: [checked.input] };
}

/** Starts a time-skipping host in `dexHome`, runs `start` there with `answers`, and stops the host. */
export async function replayOnTimeSkipping(
  start: PlanStart,
  dexHome: string,
  answers: readonly ScriptedAnswer[],
  out: Output,
  activities?: (deps: ActivityDeps) => object,
): Promise<ScriptedRun> {
  out.info('starting the time-skipping test server and a worker (durable timers and deadlines pass at once)…');
  const host = await startTimeSkippingHost({ dexHome, activities });
  try {
    out.info(`started ${start.workflowId}`);
    return await runScripted(host, start, answers, progressView(out, Date.now()));
  } finally {
    await host.stop();
  }
}

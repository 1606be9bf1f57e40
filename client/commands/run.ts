import { onePositional, parseCommandArgs, type Output } from '../cli-context';
import { COMMAND_HELP, usageOf } from '../command-help';
import type * as DriveRun from '../run/drive-run';
import { describeDrivenRun } from '../render/render-run-end';
import { PLAN_KINDS } from '../plan-kinds';
import { finishRecording, startRecording } from '../requests/replay-test-record';
import { recordForge } from '../requests/forge-recording';
import { withStore } from '../command-store';
import { roadmapAbout } from '../run/run-about';
import { commandSettings } from '../run-queues';
import { buildRoadmapInput, checkRoadmapRequest } from '../requests/roadmap-request';
import { checkForgeRepository } from '../fleet/forge-repo-check';
import { readForgeRoadmap } from '../fleet/forge-roadmap-source';
import { plural } from '../../core/text/plural';

/** `dex run ROADMAP.md`: a whole roadmap, checked before anything starts. */
export async function runCommand(argv: string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, COMMAND_HELP.run.options);
  const roadmap = onePositional(positionals, 'a roadmap file', usageOf('run'));
  // A forge repository is checked (token, existence) before the local request's checks, which read a folder.
  const onForge = await checkForgeRepository(values.repo);
  const settings = commandSettings(values.detach);
  // Bad input stops before the mirror is made: nothing left behind.
  if (onForge) checkRoadmapRequest({ llm: values.llm, maxTasks: values['max-tasks'] });
  const request = { roadmap, repo: values.repo, llm: values.llm, unsafeNoSandbox: values['unsafe-no-sandbox'], maxTasks: values['max-tasks'] };
  const checked = onForge
    ? await readForgeRoadmap(onForge, roadmap, settings.dexHome, (forge) => buildRoadmapInput({ ...request, forge }, settings))
    : buildRoadmapInput(request, settings);
  const atMost = checked.input.maxTasks !== undefined ? ` (at most ${checked.input.maxTasks} this run)` : '';
  out.info(`${plural(checked.tasks.length, 'task')} in ${checked.input.roadmapFile}, landing on ${checked.input.baseBranch}${atMost}`);
  // Loaded only once the input is known to be good: bad input answers without loading the SDK.
  const { driveRun, exitCodeFor } = require('../run/drive-run') as typeof DriveRun;
  const unsandboxed = checked.input.taskDefaults.sandbox?.mode === 'off';
  const about = roadmapAbout(checked.input, checked.tasks);
  const { repoPath, roadmapFile, taskDefaults } = checked.input;
  const recording = startRecording(taskDefaults.llm, values.detach, { kind: 'roadmap', repo: repoPath, roadmap: roadmapFile }, out.info);
  const run = await driveRun({ kind: 'roadmap', workflowId: checked.workflowId, args: [checked.input], about, unsandboxed, ...(onForge ? { fleet: true } : {}) }, settings, out, {
    detach: values.detach,
    // A landing through pull requests keeps its forge's answers too, read from the run's history (docs/landing-through-prs.md#replaying-a-landing);
    // no other recording opens the store for it.
    onEnd: recording
      ? async (handle, end) => {
          const forge = checked.input.land?.mode === 'pr' ? await withStore(settings.dexHome, (store) => recordForge(handle, checked.input.land, store)) : undefined;
          finishRecording(recording, handle.workflowId, end, forge);
        }
      : undefined,
  });
  out.result(describeDrivenRun(PLAN_KINDS.roadmap.workflowType, run), {
    workflowId: run.workflowId,
    ...run.end,
    webUi: run.webUi,
  });
  return run.end ? exitCodeFor(run.end) : 0;
}

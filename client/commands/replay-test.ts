import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { InvalidInput } from '../../core/run/invalid-input';
import { plural } from '../../core/text/plural';
import { onePositional, parseCommandArgs, type Output } from '../cli-context';
import { COMMAND_HELP, usageOf } from '../command-help';
import type * as DriveRun from '../run/drive-run';
import type * as DriveTask from '../run/drive-task';
import { parseLlmSpec } from '../requests/llm-spec';
import { buildRoadmapInput } from '../requests/roadmap-request';
import { changedFiles, copyAtStart, differences, replayRemote } from '../render/replay-test';
import { replayedForgeActivities } from '../testing/replayed-forge';
import type { ActivityDeps } from '../../activities';
import { outcomeOf, readRecordedRun, type RecordedRun } from '../requests/replay-test-record';
import { roadmapAbout } from '../run/run-about';
import type { RunEnd } from '../run/follow-run';
import { readSettings, type Settings } from '../settings';
import { readPeopleScript } from '../requests/people-script';
import { unmetExpectations } from '../testing/expectations';
import { recordedPlanStart, replayOnTimeSkipping, timeSkippingSettings } from '../testing/replay-recording';
import type { ScriptedRun } from '../testing/scripted-run';
import { commandSettings } from '../run-queues';
import { duration, replayPlanTest } from '../testing/replay-plans';
import { buildTaskInput, resolveRepository } from '../requests/task-request';

/**
 * `dex replay-test FILE` (docs/interfaces.md#recording-a-run, docs/testing-your-flows.md): runs a
 * recorded run again from its cassette on a fresh copy of the repository at the commit it started
 * from, on the time-skipping server (`--dev-server`: the dev server, in real time); exit 0 when it
 * ends the same (state and the tree of every task's final commit) or as `--script` expects, 1
 * naming what differs.
 */
export async function replayTestCommand(argv: string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, COMMAND_HELP['replay-test'].options);
  const file = resolve(onePositional(positionals, 'a cassette recorded with --llm record:FILE', usageOf('replay-test')));
  if (values.script && values['dev-server']) throw new InvalidInput('--script answers gates on the time-skipping server: drop --dev-server');
  const recorded = readRecordedRun(file);
  if (recorded.kind === 'layer') return replayPlanTest(file, recorded, values, out);
  const script = values.script ? readPeopleScript(resolve(values.script)) : undefined;
  if (recorded.kind === 'sheet') return replayPlanTest(file, recorded, values, out, script);
  const llm = `replay:${file}`;
  // The cassette is checked before anything is made.
  parseLlmSpec(llm);
  if (recorded.forge && values['dev-server']) {
    throw new InvalidInput('a landing through pull requests replays on the time-skipping server, where its forge is played back: drop --dev-server');
  }
  const repo = resolveRepository(values.repo ?? recorded.repo);
  const copy = copyAtStart(recorded, repo);
  const dexHome = join(dirname(copy), 'dex-home');
  let replay: () => Promise<Replayed>;
  try {
    if (values['dev-server']) replay = startReplay(recorded, copy, llm, values['unsafe-no-sandbox'], commandSettings(false), out);
    else {
      const forge = recorded.forge;
      // Pushes go to a bare repository beside the copy; the forge's answers are the recording's.
      const remote = forge ? replayRemote(copy, forge.remote) : '';
      const start = recordedPlanStart(recorded, copy, llm, values['unsafe-no-sandbox'], timeSkippingSettings(readSettings(), dexHome));
      const activities = forge ? (deps: ActivityDeps) => replayedForgeActivities(forge, remote, () => deps.store) : undefined;
      replay = () => replayOnTimeSkipping(start, dexHome, script?.answers ?? [], out, activities);
    }
  } catch (err) {
    // Bad input leaves nothing behind: not even the copy.
    rmSync(dirname(copy), { recursive: true, force: true });
    throw err;
  }
  out.info(`replaying ${file} on a copy of ${repo} at ${recorded.startCommit.slice(0, 10)}: ${copy}`);
  const run = await replay();
  const replayed = outcomeOf(recorded.kind, copy, recorded.branch === 'HEAD' ? 'replay' : recorded.branch, run.end!);
  const files = (a: string, b: string) => changedFiles(copy, a, b);
  const differ = script
    ? unmetExpectations(script.expect, { outcome: replayed, costUsd: run.status?.costUsd ?? 0, prompts: run.prompts ?? [], unused: run.unused ?? [], stuck: run.stuck }, () =>
        differences(recorded.end, replayed, files),
      )
    : differences(recorded.end, replayed, files);
  const what = script ? `the script's expectations (${values.script})` : `the recording ${recorded.workflowId}`;
  const head = differ.length
    ? `${run.workflowId}: the replay differs from ${what}:`
    : `${run.workflowId}: the replay ends as ${what} ${script ? 'expect' : 'did'}: ${replayed.state}, ${plural(replayed.tasks.length, 'task tree')}${script ? '' : ' the same'}`;
  const times = run.simulatedMs === undefined ? [] : [`took ${duration(run.simulatedMs)} of simulated time in ${duration(run.wallMs!)} wall time`];
  out.result([head, ...differ.map((d) => `  ${d}`), ...(run.answered ?? []).map((a) => `  answered: ${a}`), ...times, `replayed in ${copy}`].join('\n'), {
    same: differ.length === 0,
    differences: differ,
    workflowId: run.workflowId,
    recorded: recorded.end,
    replayed,
    copy,
    ...(run.simulatedMs === undefined ? {} : { simulatedMs: run.simulatedMs, wallMs: run.wallMs, answered: run.answered }),
  });
  return differ.length ? 1 : 0;
}

/** How a replay went: on the dev server, its id and end; on the time-skipping server, a scripted run. */
type Replayed = { workflowId: string; end?: RunEnd<unknown> } & Partial<Omit<ScriptedRun, 'workflowId' | 'end'>>;

/** `--dev-server`: the replay's input, checked (InvalidInput before anything starts), and what starts it in real time. */
function startReplay(recorded: RecordedRun, copy: string, llm: string, unsafeNoSandbox: boolean | undefined, settings: Settings, out: Output) {
  if (recorded.kind === 'task') {
    const { title, description, weight, attempts } = recorded.task!;
    const { input, repoName } = buildTaskInput({ title, description, weight, attempts, repo: copy, llm, unsafeNoSandbox }, settings);
    return async () => {
      const { driveTask } = require('../run/drive-task') as typeof DriveTask;
      return driveTask(input, repoName, settings, out);
    };
  }
  if (!recorded.roadmap) throw new InvalidInput('the recording names no roadmap');
  const checked = buildRoadmapInput({ roadmap: join(copy, recorded.roadmap), repo: copy, llm, unsafeNoSandbox }, settings);
  return async () => {
    const { driveRun } = require('../run/drive-run') as typeof DriveRun;
    const about = roadmapAbout(checked.input, checked.tasks);
    const unsandboxed = checked.input.taskDefaults.sandbox?.mode === 'off';
    return driveRun({ kind: 'roadmap', workflowId: checked.workflowId, args: [checked.input], about, unsandboxed }, settings, out);
  };
}

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
import { changedFiles, copyAtStart, differences } from '../render/replay-test';
import { outcomeOf, readRecordedRun, type RecordedRun } from '../requests/replay-test-record';
import { roadmapAbout } from '../run/run-about';
import type { Settings } from '../settings';
import { commandSettings } from '../run-queues';
import { buildTaskInput, resolveRepository } from '../requests/task-request';

/**
 * `dex replay-test FILE` (docs/interfaces.md#recording-a-run): runs a recorded run again from
 * its cassette on a fresh copy of the repository at the commit it started from; exit 0 when it
 * ends the same (state and the tree of every task's final commit), 1 naming what differs.
 */
export async function replayTestCommand(argv: string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, COMMAND_HELP['replay-test'].options);
  const file = resolve(onePositional(positionals, 'a cassette recorded with --llm record:FILE', usageOf('replay-test')));
  const recorded = readRecordedRun(file);
  const llm = `replay:${file}`;
  // The cassette is checked before anything is made.
  parseLlmSpec(llm);
  const repo = resolveRepository(values.repo ?? recorded.repo);
  const copy = copyAtStart(recorded, repo);
  const settings = commandSettings(false);
  let replay: ReturnType<typeof startReplay>;
  try {
    replay = startReplay(recorded, copy, llm, values['unsafe-no-sandbox'], settings, out);
  } catch (err) {
    // Bad input leaves nothing behind: not even the copy.
    rmSync(dirname(copy), { recursive: true, force: true });
    throw err;
  }
  out.info(`replaying ${file} on a copy of ${repo} at ${recorded.startCommit.slice(0, 10)}: ${copy}`);
  const { workflowId, end } = await replay();
  const replayed = outcomeOf(recorded.kind, copy, recorded.branch === 'HEAD' ? 'replay' : recorded.branch, end!);
  const differ = differences(recorded.end, replayed, (a, b) => changedFiles(copy, a, b));
  const head = differ.length
    ? `${workflowId}: the replay differs from the recording ${recorded.workflowId}:`
    : `${workflowId}: the replay ends as the recording ${recorded.workflowId} did: ${replayed.state}, ${plural(replayed.tasks.length, 'task tree')} the same`;
  out.result([head, ...differ.map((d) => `  ${d}`), `replayed in ${copy}`].join('\n'), {
    same: differ.length === 0,
    differences: differ,
    workflowId,
    recorded: recorded.end,
    replayed,
    copy,
  });
  return differ.length ? 1 : 0;
}

/** The replay's input, checked (InvalidInput before anything starts), and what starts it. */
function startReplay(recorded: RecordedRun, copy: string, llm: string, unsafeNoSandbox: boolean | undefined, settings: Settings, out: Output) {
  if (recorded.kind === 'task') {
    const { title, description, weight } = recorded.task!;
    const { input, repoName } = buildTaskInput({ title, description, weight, repo: copy, llm, unsafeNoSandbox }, settings);
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

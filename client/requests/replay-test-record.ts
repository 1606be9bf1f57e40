/**
 * The sidecar of a recording, `FILE.run.json` beside a `record:FILE` cassette
 * (docs/interfaces.md#recording-a-run): what run was recorded, from which commit, and how it
 * ended (its state and the git tree of each task's final commit), for `dex replay-test` to
 * compare a replay with. The command that serves the run writes it when the run ends; a detached
 * run is not followed to its end, so it has none.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { InvalidInput } from '../../core/run/invalid-input';
import type { RoadmapResult } from '../../core/roadmap/roadmap-types';
import type { LlmSpec } from '../../core/run/run-types';
import type { TaskResult } from '../../core/task/task-types';
import { dexGitSync } from '../../host/git/dex-git';
import type { RunEnd } from '../run/follow-run';
import { checkRecordedForge, type RecordedForge } from './forge-recording';
import { checkRecordedPlan, type RecordedPlan } from './recorded-plans';

/** How a run ended, in what a replay must match. */
export interface RunOutcome {
  state: string;
  /** Each task: its state and the tree of its final commit (null when it made none). */
  tasks: { id: string; state: string; tree: string | null }[];
  /** A roadmap: the tree of the branch its tasks landed on. */
  branchTree?: string | null;
}

/** What `replay-test` needs to run a recorded run again: its kind and input, where it started. */
export interface RecordedStart {
  kind: 'task' | 'roadmap';
  /** The repository the run was recorded on. */
  repo: string;
  /** The branch checked out when it started (a roadmap lands on it). */
  branch: string;
  startCommit: string;
  task?: { title: string; description?: string; weight?: string; attempts?: string };
  /** A roadmap's file, relative to the repository. */
  roadmap?: string;
}

/** The sidecar's content. */
export interface RecordedRun extends RecordedStart {
  version: 1;
  workflowId: string;
  end: RunOutcome;
  /** A roadmap that landed through pull requests: its forge's answers, which a replay plays back (forge-recording.ts). */
  forge?: RecordedForge;
}

/** A recording under way: where its sidecar goes and what it started from. */
interface Recording {
  sidecar: string;
  start: RecordedStart;
}

/** The sidecar of cassette `file`. */
const sidecarPath = (file: string): string => `${file}.run.json`;

/** The tree of `rev` in `repo`, or null when there is no such commit. */
export function treeOf(repo: string, rev: string): string | null {
  try {
    return dexGitSync(repo, ['rev-parse', '--verify', '--quiet', `${rev}^{tree}`]).trim() || null;
  } catch {
    return null;
  }
}

/**
 * A recording of a run that starts now, when `llm` records and the run is followed to its end;
 * undefined otherwise (a detached recording says it will have no sidecar).
 */
export function startRecording(
  llm: LlmSpec,
  detach: boolean | undefined,
  start: Omit<RecordedStart, 'branch' | 'startCommit'>,
  info: (line: string) => void,
): Recording | undefined {
  if (llm.kind !== 'record') return undefined;
  if (detach) {
    info(`recording to ${llm.path}; a detached run writes no ${sidecarPath(llm.path)}, so dex replay-test cannot check it`);
    return undefined;
  }
  return { sidecar: sidecarPath(llm.path), start: { ...start, ...repoStart(start.repo) } };
}

/** Where `repo` is now: the branch checked out and its commit, which a replay copies it at. */
export function repoStart(repo: string): Pick<RecordedStart, 'branch' | 'startCommit'> {
  return { branch: dexGitSync(repo, ['rev-parse', '--abbrev-ref', 'HEAD']).trim(), startCommit: dexGitSync(repo, ['rev-parse', 'HEAD']).trim() };
}

/** Writes the sidecar of a recorded run that ended with `end` (and its forge's answers, when it landed through pull requests). */
export function finishRecording(recording: Recording, workflowId: string, end: RunEnd<unknown>, forge?: RecordedForge): void {
  const { start } = recording;
  const run: RecordedRun = { version: 1, ...start, workflowId, end: outcomeOf(start.kind, start.repo, start.branch, end), ...(forge ? { forge } : {}) };
  writeFileSync(recording.sidecar, `${JSON.stringify(run, null, 2)}\n`);
}

/** How a run of `kind` on `repo` ended, as trees in that repository. */
export function outcomeOf(kind: RecordedStart['kind'], repo: string, branch: string, end: RunEnd<unknown>): RunOutcome {
  const tree = (commit: string | undefined) => (commit ? treeOf(repo, commit) : null);
  if (kind === 'task') {
    const result = end.result as TaskResult | undefined;
    return { state: end.state, tasks: result ? [{ id: result.taskId, state: result.state ?? end.state, tree: tree(result.commit) }] : [] };
  }
  const result = end.result as RoadmapResult | undefined;
  const tasks = (result?.tasks ?? []).map((t) => ({ id: t.id, state: t.state, tree: tree(t.commit) }));
  return { state: end.state, tasks, branchTree: treeOf(repo, branch) };
}

/** The sidecar of cassette `file`, checked; InvalidInput (exit 2) when it is missing or malformed. */
export function readRecordedRun(file: string): RecordedRun | RecordedPlan {
  const path = sidecarPath(file);
  if (!existsSync(path)) {
    throw new InvalidInput(`${path} not found: record the run with --llm record:${file} and without --detach, so it is written at the end`);
  }
  let run: Partial<RecordedRun>;
  try {
    run = JSON.parse(readFileSync(path, 'utf8')) as Partial<RecordedRun>;
  } catch (err) {
    throw new InvalidInput(`${path}: not valid JSON (${(err as Error).message})`);
  }
  const fail = (what: string): never => {
    throw new InvalidInput(`${path}: ${what}`);
  };
  if (run.version !== 1) fail('"version" must be 1');
  const kind = run.kind as string;
  if (kind === 'layer' || kind === 'sheet') return checkRecordedPlan(run as Partial<RecordedPlan>, fail);
  if (run.kind !== 'task' && run.kind !== 'roadmap') fail('"kind" must be "task", "roadmap", "layer" or "sheet"');
  for (const field of ['repo', 'branch', 'startCommit', 'workflowId'] as const) {
    if (typeof run[field] !== 'string' || !run[field]) fail(`"${field}" must be a non-empty string`);
  }
  if (run.kind === 'task' && typeof run.task?.title !== 'string') fail('a task run needs "task.title"');
  if (run.kind === 'roadmap' && typeof run.roadmap !== 'string') fail('a roadmap run needs "roadmap"');
  if (typeof run.end?.state !== 'string' || !Array.isArray(run.end.tasks)) fail('"end" must hold "state" and "tasks"');
  if (run.forge !== undefined) {
    if (run.kind !== 'roadmap') fail('only a roadmap run has "forge"');
    checkRecordedForge(run.forge, fail);
  }
  return run as RecordedRun;
}

/**
 * What a recorded sheet run keeps besides its file (docs/interfaces.md#recording-a-run): the
 * repositories its task statements work on, as they were at its start, and how it ended, a task
 * statement's commit as its tree. `dex sheet --llm record:FILE` and `dex replay-test` read them the same way.
 */
import type { SheetInput, SheetResult } from '../../core/sheet/sheet-types';
import type { RunEnd } from '../run/follow-run';
import type { RecordedRepo, SheetOutcome } from './recorded-plans';
import { repoStart, treeOf } from './replay-test-record';

/** The repositories `input`'s task statements (their actions and undos) work on, each once. */
function taskRepos(input: SheetInput): string[] {
  const actions = input.statements.flatMap((s) => [s.action, ...(s.undo ? [s.undo] : [])]);
  return [...new Set(actions.flatMap((a) => (a.run === 'task' ? [a.task.repoPath] : [])))];
}

/** Where each of `input`'s task statements' repositories is now: what a recording keeps. */
export function recordedRepos(input: SheetInput): RecordedRepo[] {
  return taskRepos(input).map((path) => ({ path, ...repoStart(path) }));
}

/** How sheet run `input` ended: each statement's status, value and error code, and a task statement's tree. */
export function sheetOutcomeOf(end: RunEnd<unknown>, input: SheetInput): SheetOutcome {
  const result = end.result as SheetResult | undefined;
  const statements = (result?.statements ?? []).map((s) => {
    const action = input.statements.find((p) => p.id === s.id)?.action;
    const tree = action?.run === 'task' && s.value ? { tree: treeOf(action.task.repoPath, s.value) } : {};
    return { id: s.id, status: s.status, ...(s.value !== undefined ? { value: s.value } : {}), ...(s.error ? { error: s.error.code } : {}), ...tree };
  });
  return { state: end.state, statements };
}

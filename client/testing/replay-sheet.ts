/**
 * The replay of a recorded sheet (docs/testing-your-flows.md#layers-and-sheets): its file run again
 * with the cassette as the model, its task statements on fresh copies of their repositories at the
 * commits the recording started from (the repositories themselves get no commits), its `plan` gate
 * answered as it was when recorded, or by a people script.
 */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { InvalidInput } from '../../core/run/invalid-input';
import type { SheetInput } from '../../core/sheet/sheet-types';
import { copyAtStart } from '../render/replay-test';
import type { ScriptedAnswer } from '../requests/people-script';
import type { RecordedSheet } from '../requests/recorded-plans';
import { buildSheetInput, planSheetFile } from '../requests/sheet-file';
import type { Settings } from '../settings';

/** A checked sheet replay: its input, who answers its gates, and the copies its task statements work on. */
interface SheetReplay {
  input: SheetInput;
  answers: ScriptedAnswer[];
  copies: string[];
}

/** The replay of `recorded`, checked now (InvalidInput before anything starts, no copy left behind); `script`: a people script's answers. */
export function sheetReplay(recorded: RecordedSheet, llm: string, settings: Settings, script?: readonly ScriptedAnswer[]): SheetReplay {
  const copies = new Map<string, string>();
  const repoOf = (repo: string): string => {
    const start = recorded.repos?.find((r) => r.path === repo);
    if (!start) throw new InvalidInput(`${recorded.file}: the recording does not say where ${repo}, which a task statement works on, started: record the sheet again`);
    if (!copies.has(repo)) copies.set(repo, copyAtStart(start, repo));
    return copies.get(repo)!;
  };
  try {
    const input = buildSheetInput(recorded.file, planSheetFile(recorded.file), { confirm: recorded.confirm, llm, repoOf }, settings);
    return { input, answers: script ? [...script] : recordedAnswers(recorded), copies: [...copies.values()] };
  } catch (err) {
    for (const copy of copies.values()) rmSync(dirname(copy), { recursive: true, force: true });
    throw err;
  }
}

/** The plan gate answered as the person who recorded answered it. */
function recordedAnswers(recorded: RecordedSheet): ScriptedAnswer[] {
  if (!recorded.confirm) return [];
  return [recorded.end.state === 'rejected' ? { action: 'reject', gate: 'plan', reason: 'rejected when recorded' } : { action: 'approve', gate: 'plan' }];
}

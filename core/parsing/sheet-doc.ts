/**
 * A sheet file's content as written (docs/sheets.md#the-file-sheetyaml), already valid against
 * schemas/sheet.schema.json. Pure: shared by planning, expansion and the checks before a run.
 */
import type { InvalidInput } from '../run/invalid-input';

/** How a statement or its undo runs, as written in the file. */
export interface ActionDoc {
  run: 'shell' | 'llm' | 'task';
  /** shell: the command, run with /bin/sh in the sheet's folder. */
  command?: string;
  /** llm: the prompt; the reply's text is the value. */
  prompt?: string;
  model?: string;
  maxTokens?: number;
  /** task: a coding task on `repo`; the checkpoint commit's sha is the value. */
  title?: string;
  description?: string;
  repo?: string;
}

/** One statement as written in the file. */
export interface StatementDoc extends ActionDoc {
  id: string;
  /** The symbol it produces, `@name`. */
  as?: string;
  /** Its compensation, run when a transaction fails after it completed. */
  undo?: ActionDoc;
}

/** A sheet file's content. */
export interface SheetDoc {
  name?: string;
  /** @default false */
  transaction?: boolean;
  /** @default 4 */
  maxParallel?: number;
  /**
   * The set a template sheet runs over: each statement is copied once per target. A `file`
   * (one target a line) is read by the client, which hands planning the list.
   */
  for_each?: string[] | { file: string };
  statements: StatementDoc[];
}

/**
 * Makes the InvalidInput of a problem, placed at the statement at `index` in the file when
 * given (`FILE:LINE:COLUMN: …`), else at the file.
 */
export type SheetFault = (what: string, index?: number) => InvalidInput;

/** The texts of an action as written that may reference symbols. */
export function textsOf(action: ActionDoc): string[] {
  return [action.command, action.prompt, action.title, action.description].filter((t): t is string => t !== undefined);
}

/** What a statement does, as written: its command, prompt or title. */
export function mainText(action: ActionDoc): string {
  return action.command ?? action.prompt ?? action.title ?? '';
}

/** The statements whose action has an effect outside dex (a command, a commit): llm statements only answer. */
export function hasEffect(action: ActionDoc): boolean {
  return action.run !== 'llm';
}

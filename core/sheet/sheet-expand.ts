/**
 * Template × set (docs/sheets.md#template-over-a-set-for_each): a sheet with `for_each` is
 * copied once per target before planning, `@target` becoming the target and every symbol
 * becoming the target's own. Pure: the client expands before it plans, so the plan, the `plan`
 * gate and the workflow see only ordinary statements.
 */
import { hasEffect, textsOf, type ActionDoc, type SheetDoc, type SheetFault, type StatementDoc } from '../parsing/sheet-doc';
import { escapeReferences, quoteFor, rewriteShell, rewriteText, symbolsIn } from './sheet-symbols';

/** The reference that stands for the target in a `for_each` sheet; no statement may produce it. */
export const TARGET_SYMBOL = 'target';

/** How long a target's key (in ids and symbol names) may be. */
const KEY_CHARS = 40;

/** One statement to plan: as written (a copy, in a `for_each` sheet) and which statement of the file it comes from. */
export interface SheetStatement {
  doc: StatementDoc;
  /** Its index in the file (a copy's template). */
  template: number;
  target?: string;
}

/** The targets of a sheet, checked: none empty, none twice, at least one. Undefined without `for_each`. */
export function checkTargets(doc: SheetDoc, fault: SheetFault): string[] | undefined {
  const set = doc.for_each;
  if (set === undefined) return undefined;
  // The client reads a file of targets into a list; a file here is a caller's mistake.
  if (!Array.isArray(set)) throw new Error(`for_each: the file ${set.file} must be read before planning`);
  if (set.length === 0) throw fault('for_each names no target: a sheet over an empty set would run nothing');
  const blank = set.findIndex((t) => t.trim() === '');
  if (blank !== -1) throw fault(`for_each: target ${blank + 1} is empty`);
  const twice = set.find((t, i) => set.indexOf(t) !== i);
  if (twice !== undefined) throw fault(`for_each names the target ${JSON.stringify(twice)} twice`);
  return set;
}

/** Refuses what `@target` rules out: producing it, and using it in a sheet without `for_each`. */
export function checkTargetUse(doc: SheetDoc, fault: SheetFault): void {
  doc.statements.forEach((s, i) => {
    if (s.as === `@${TARGET_SYMBOL}`) throw fault(`statement "${s.id}" produces @${TARGET_SYMBOL}, a name reserved for the for_each target`, i);
    const texts = [...textsOf(s), ...(s.undo ? textsOf(s.undo) : [])];
    if (doc.for_each === undefined && texts.some((t) => symbolsIn(t).includes(TARGET_SYMBOL))) {
      throw fault(`statement "${s.id}" uses @${TARGET_SYMBOL}, but the sheet has no for_each`, i);
    }
  });
}

/**
 * Refuses a transaction that could not undo everything: every statement with an effect (shell,
 * task) needs an `undo`. Names all that lack one, placed at the first.
 */
export function checkTransaction(doc: SheetDoc, fault: SheetFault): void {
  if (!doc.transaction) return;
  const lacking = doc.statements.map((s, i) => ({ s, i })).filter(({ s }) => hasEffect(s) && !s.undo);
  if (lacking.length === 0) return;
  const names = lacking.map(({ s }) => `"${s.id}"`).join(', ');
  throw fault(
    `transaction: true needs an undo on every shell and task statement, so that a failure can be rolled back; without one: ${names}`,
    lacking[0].i,
  );
}

/**
 * Each target's key, unique: the target with anything but letters, digits, `_` and `-` made
 * `-`, at most 40 characters; a second target with the same key gets `_2`, `_3`, ….
 */
export function targetKeys(targets: readonly string[]): string[] {
  const taken = new Set<string>();
  return targets.map((target) => {
    let base = target.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^[-_]+|[-_]+$/g, '').slice(0, KEY_CHARS) || 't';
    // git refuses a branch ending in `.lock`, and a task statement's id ends its branch's name.
    if (base.toLowerCase() === 'lock') base = `${base}_`;
    let key = base;
    // Unique as symbol suffixes (where `-` reads `_`), hence as ids too.
    for (let n = 2; taken.has(symbolSuffix(key)); n++) key = `${base}_${n}`;
    taken.add(symbolSuffix(key));
    return key;
  });
}

/** A key as the tail of a symbol name, which allows no `-`. */
function symbolSuffix(key: string): string {
  return key.replace(/-/g, '_');
}

/** The id of a statement's copy for the target with key `key`. */
const copyId = (id: string, key: string): string => `${id}.${key}`;

/** The name of a symbol's copy for the target with key `key`. */
const copySymbol = (name: string, key: string): string => `${name}__${symbolSuffix(key)}`;

/** The statements to plan: as written, or, with targets, every statement once per target (statement by statement). */
export function expandStatements(doc: SheetDoc, targets: readonly string[] | undefined): SheetStatement[] {
  if (!targets) return doc.statements.map((s, i) => ({ doc: s, template: i }));
  const keys = targetKeys(targets);
  return doc.statements.flatMap((s, template) => targets.map((target, t) => ({ doc: copyStatement(s, target, keys[t]), template, target })));
}

function copyStatement(s: StatementDoc, target: string, key: string): StatementDoc {
  return {
    ...copyAction(s, target, key),
    id: copyId(s.id, key),
    ...(s.as ? { as: `@${copySymbol(s.as.slice(1), key)}` } : {}),
    ...(s.undo ? { undo: copyAction(s.undo, target, key) } : {}),
  };
}

/**
 * An action's copy for one target: `@target` becomes the target (escaped so the later
 * substitution reads it back literally; in a command, quoted as a symbol's value is),
 * `@name` becomes the target's `@name__key`, and `@@` stays.
 */
function copyAction<A extends ActionDoc>(a: A, target: string, key: string): A {
  const literal = escapeReferences(target);
  const rename = (name: string): string => (name === '@' ? '@@' : `@${copySymbol(name, key)}`);
  const text = (t: string | undefined) => (t === undefined ? undefined : rewriteText(t, (name) => (name === TARGET_SYMBOL ? literal : rename(name))));
  const copy: A = { ...a };
  if (a.command !== undefined) copy.command = rewriteShell(a.command, (name, quoting) => (name === TARGET_SYMBOL ? quoteFor(quoting, literal) : rename(name)));
  if (a.prompt !== undefined) copy.prompt = text(a.prompt);
  if (a.title !== undefined) copy.title = text(a.title);
  if (a.description !== undefined) copy.description = text(a.description);
  return copy;
}

/**
 * Sheets (docs/sheets.md): a list of statements that produce and consume `@symbols`,
 * checked and ordered by their data flow into phases by DAG depth. Pure: the client plans here
 * before anything starts; the shape is checked against schemas/sheet.schema.json first.
 */
import { DependencyError, dependencyDepths, dependencyPhases } from '../roadmap/dependency-phases';
import { InvalidInput } from '../run/invalid-input';
import { mainText, textsOf, type SheetDoc, type SheetFault, type StatementDoc } from './sheet-doc';
import { checkTargets, checkTargetUse, checkTransaction, expandStatements, TARGET_SYMBOL, type SheetStatement } from '../sheet/sheet-expand';
import { symbolsIn } from '../sheet/sheet-symbols';
import type { PlannedStatement, SourceSpan } from '../sheet/sheet-types';
import { plural } from '../text/plural';

export type { ActionDoc, SheetDoc, StatementDoc } from './sheet-doc';

/** A statement with its place in the DAG, and as written (a `for_each` copy: with the target in place). */
interface StatementPlan extends Omit<PlannedStatement, 'action' | 'undo'> {
  doc: StatementDoc;
}

/** A checked sheet: its statements (expanded, with `for_each`), their phases and the data-flow order. */
export interface SheetPlan {
  name: string;
  transaction: boolean;
  maxParallel: number;
  statements: StatementPlan[];
  /** Statement indexes by depth, each phase in file order. */
  phases: number[][];
  /** Statement indexes reordered by data flow: producers before consumers. */
  order: number[];
  /** The `for_each` targets, in order. */
  targets?: string[];
}

/** Where a sheet came from, so every problem names its place and every statement its span. */
interface SheetOrigin {
  file: string;
  /** Each statement's span in the file, by its index there. */
  spans?: readonly (SourceSpan | undefined)[];
  /** Where problems with the set of targets are placed (`FILE:LINE:COLUMN` of `for_each`, or the file of targets). */
  forEachPlace?: string;
}

/** @default 4 */
const DEFAULT_MAX_PARALLEL = 4;

/** Makes a sheet's InvalidInputs: after `FILE:LINE:COLUMN` of the statement at fault when known. */
function sheetFault(origin: SheetOrigin | undefined): SheetFault {
  return (what, index) => {
    if (!origin) return new InvalidInput(what);
    const span = index === undefined ? undefined : origin.spans?.[index];
    return new InvalidInput(`${span ? `${origin.file}:${span.line}:${span.column}` : origin.file}: ${what}`);
  };
}

/**
 * Checks a sheet and plans it: `@target` and the targets, a transaction's undos, then the data
 * flow (each consumed symbol produced exactly once, no cycle) of the statements as written; then
 * expands a `for_each` sheet and gives each statement its depth. Throws InvalidInput naming the
 * statements and symbols at fault, placed at the first (`FILE:LINE:COLUMN`) when `origin` is given.
 */
export function planSheet(doc: SheetDoc, fallbackName: string, origin?: SheetOrigin): SheetPlan {
  const fault = sheetFault(origin);
  const targets = checkTargets(doc, origin?.forEachPlace ? (what) => new InvalidInput(`${origin.forEachPlace}: ${what}`) : fault);
  checkTargetUse(doc, fault);
  checkTransaction(doc, fault);
  // The statements as written first: a problem names the statement a person wrote, not a copy.
  planFlow(expandStatements(doc, undefined), fault, targets ? [TARGET_SYMBOL] : []);
  const statements = expandStatements(doc, targets);
  const { flow, phases } = planFlow(statements, fault, []);
  return {
    name: doc.name ?? fallbackName,
    transaction: doc.transaction ?? false,
    maxParallel: doc.maxParallel ?? DEFAULT_MAX_PARALLEL,
    statements: flow.map((s, index) => {
      const { template, target } = statements[index];
      const span = origin?.spans?.[template];
      return { ...s, ...(span ? { span } : {}), source: mainText(doc.statements[template]), ...(target !== undefined ? { target } : {}) };
    }),
    phases,
    order: phases.flat(),
    ...(targets ? { targets } : {}),
  };
}

/** The data flow of `statements`: who needs whom, each one's depth, and the phases; `given` are names no statement needs to produce. */
function planFlow(statements: SheetStatement[], fault: SheetFault, given: string[]) {
  const at = (what: string, i: number) => fault(what, statements[i].template);
  const producer = new Map<string, string>();
  const seen = new Set<string>();
  statements.forEach(({ doc: s }, i) => {
    if (seen.has(s.id)) throw at(`two statements have the id "${s.id}"`, i);
    seen.add(s.id);
    if (!s.as) return;
    const symbol = s.as.slice(1);
    const other = producer.get(symbol);
    if (other) throw at(`@${symbol} is produced by both statement "${other}" and statement "${s.id}"`, i);
    producer.set(symbol, s.id);
  });

  const partial = statements.map(({ doc: s }, index) => {
    const produces = s.as?.slice(1);
    const own = textsOf(s).flatMap(symbolsIn).filter((name) => !given.includes(name));
    if (produces && own.includes(produces)) {
      throw at(`dependency cycle between statements: statement "${s.id}" uses @${produces}, which it produces itself`, index);
    }
    // The undo may read the statement's own value; anything else it reads is a dependency too.
    const fromUndo = (s.undo ? textsOf(s.undo).flatMap(symbolsIn) : []).filter((name) => name !== produces && !given.includes(name));
    const consumes = [...new Set([...own, ...fromUndo])];
    const needs: string[] = [];
    for (const symbol of consumes) {
      const by = producer.get(symbol);
      if (!by) throw at(`unbound symbol @${symbol}: statement "${s.id}" uses it, but no statement produces it (as: "@${symbol}")`, index);
      if (!needs.includes(by)) needs.push(by);
    }
    return { index, id: s.id, ...(produces ? { produces } : {}), consumes, needs, doc: s };
  });

  const indexOf = new Map(partial.map((s) => [s.id, s.index]));
  try {
    const depths = dependencyDepths(partial);
    const phases = dependencyPhases(partial).map((ids) => ids.map((id) => indexOf.get(id)!));
    return { flow: partial.map((s) => ({ ...s, depth: depths.get(s.id)! })), phases };
  } catch (err) {
    if (err instanceof DependencyError && err.problem.kind === 'cycle') {
      const ids = err.problem.ids;
      throw at(`dependency cycle between statements: ${[...ids, ids[0]].map((id) => `"${id}"`).join(' -> ')}`, indexOf.get(ids[0])!);
    }
    throw err;
  }
}

/** The plan as text: one line per phase, each statement with its index. */
export function describePlan(plan: SheetPlan): string {
  const over = plan.targets ? ` over ${plural(plan.targets.length, 'target')}` : '';
  const lines = [`sheet ${plan.name}: ${plural(plan.statements.length, 'statement')} in ${plural(plan.phases.length, 'phase')}${over}${plan.transaction ? ' (transaction)' : ''}`];
  plan.phases.forEach((phase, n) => {
    const items = phase.map((i) => {
      const s = plan.statements[i];
      return `${s.id} (#${i}${s.produces ? ` → @${s.produces}` : ''})`;
    });
    lines.push(`phase ${n}: ${items.join(', ')}`);
  });
  return lines.join('\n');
}

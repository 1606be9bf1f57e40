/**
 * Sheets (docs/sheets.md): a list of statements that produce and consume `@symbols`,
 * checked and ordered by their data flow into phases by DAG depth. Pure: the client plans here
 * before anything starts; the shape is checked against schemas/sheet.schema.json first.
 */
import { DependencyError, dependencyDepths, dependencyPhases } from './dependency-phases';
import { InvalidInput } from './invalid-input';
import { symbolsIn } from './sheet-symbols';
import type { PlannedStatement } from './sheet-types';

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

/** A sheet file's content (already valid against the JSON Schema). */
export interface SheetDoc {
  name?: string;
  /** @default false */
  transaction?: boolean;
  /** @default 4 */
  maxParallel?: number;
  statements: StatementDoc[];
}

/** A statement with its place in the DAG, and as written. */
export interface StatementPlan extends Omit<PlannedStatement, 'action' | 'undo'> {
  doc: StatementDoc;
}

/** A checked sheet: its statements in file order, their phases and the data-flow order. */
export interface SheetPlan {
  name: string;
  transaction: boolean;
  maxParallel: number;
  statements: StatementPlan[];
  /** Statement indexes by depth, each phase in file order. */
  phases: number[][];
  /** Statement indexes reordered by data flow: producers before consumers. */
  order: number[];
}

/** @default 4 */
export const DEFAULT_MAX_PARALLEL = 4;

/** The texts of an action as written that may reference symbols. */
function textsOf(action: ActionDoc): string[] {
  return [action.command, action.prompt, action.title, action.description].filter((t): t is string => t !== undefined);
}

/**
 * Checks the data flow of a sheet and plans it: every consumed symbol is produced exactly once,
 * there is no cycle, and each statement gets its depth. Throws InvalidInput naming the statements
 * and symbols at fault, after `source` (the file) when given.
 */
export function planSheet(doc: SheetDoc, fallbackName: string, source?: string): SheetPlan {
  const invalid = (what: string) => new InvalidInput(source ? `${source}: ${what}` : what);
  const producer = new Map<string, string>();
  const seen = new Set<string>();
  for (const s of doc.statements) {
    if (seen.has(s.id)) throw invalid(`two statements have the id "${s.id}"`);
    seen.add(s.id);
    if (!s.as) continue;
    const symbol = s.as.slice(1);
    const other = producer.get(symbol);
    if (other) throw invalid(`@${symbol} is produced by both statement "${other}" and statement "${s.id}"`);
    producer.set(symbol, s.id);
  }

  const partial = doc.statements.map((s, index) => {
    const produces = s.as?.slice(1);
    const own = textsOf(s).flatMap(symbolsIn);
    if (produces && own.includes(produces)) {
      throw invalid(`dependency cycle between statements: statement "${s.id}" uses @${produces}, which it produces itself`);
    }
    // The undo may read the statement's own value; anything else it reads is a dependency too.
    const fromUndo = (s.undo ? textsOf(s.undo).flatMap(symbolsIn) : []).filter((name) => name !== produces);
    const consumes = [...new Set([...own, ...fromUndo])];
    const needs: string[] = [];
    for (const symbol of consumes) {
      const by = producer.get(symbol);
      if (!by) throw invalid(`unbound symbol @${symbol}: statement "${s.id}" uses it, but no statement produces it (as: "@${symbol}")`);
      if (!needs.includes(by)) needs.push(by);
    }
    return { index, id: s.id, produces, consumes, needs, doc: s };
  });

  let depths: Map<string, number>;
  let idPhases: string[][];
  try {
    depths = dependencyDepths(partial);
    idPhases = dependencyPhases(partial);
  } catch (err) {
    if (err instanceof DependencyError && err.problem.kind === 'cycle') {
      const ids = err.problem.ids;
      throw invalid(`dependency cycle between statements: ${[...ids, ids[0]].map((id) => `"${id}"`).join(' -> ')}`);
    }
    throw err;
  }
  const indexOf = new Map(partial.map((s) => [s.id, s.index]));
  const phases = idPhases.map((ids) => ids.map((id) => indexOf.get(id)!));
  return {
    name: doc.name ?? fallbackName,
    transaction: doc.transaction ?? false,
    maxParallel: doc.maxParallel ?? DEFAULT_MAX_PARALLEL,
    statements: partial.map((s) => ({ ...s, depth: depths.get(s.id)! })),
    phases,
    order: phases.flat(),
  };
}

/** The plan as text: one line per phase, each statement with its file index. */
export function describePlan(plan: SheetPlan): string {
  const lines = [`sheet ${plan.name}: ${plan.statements.length} statements in ${plan.phases.length} phases${plan.transaction ? ' (transaction)' : ''}`];
  plan.phases.forEach((phase, n) => {
    const items = phase.map((i) => {
      const s = plan.statements[i];
      return `${s.id} (#${i}${s.produces ? ` → @${s.produces}` : ''})`;
    });
    lines.push(`phase ${n}: ${items.join(', ')}`);
  });
  return lines.join('\n');
}

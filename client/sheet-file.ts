import Ajv, { type ErrorObject } from 'ajv';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { safeName, sheetTaskId } from '../core/ids';
import { planSheet, type ActionDoc, type SheetDoc, type SheetPlan } from '../core/sheet';
import type { PlannedStatement, SheetInput, StatementAction } from '../core/sheet-types';
import type { LlmSpec } from '../core/run-types';
import { InvalidInput } from '../core/invalid-input';
import { loadDexConfig } from './config-file';
import { checkPriced, parseLlmSpec } from './llm-spec';
import type { Settings } from './settings';
import { buildTaskInput } from './task-request';

/** The published JSON Schema of sheet files (docs/interfaces.md#files). */
export const SHEET_SCHEMA_PATH = join(__dirname, '..', 'schemas', 'sheet.schema.json');

let validator: ReturnType<Ajv['compile']> | undefined;

function schemaValidator(): ReturnType<Ajv['compile']> {
  validator ??= new Ajv({ allErrors: true }).compile(JSON.parse(readFileSync(SHEET_SCHEMA_PATH, 'utf8')));
  return validator;
}

/** One schema error as a person reads it: where (with the statement's id) and what. */
function describeSchemaError(e: ErrorObject, doc: unknown): string {
  const parts = e.instancePath.split('/').filter(Boolean);
  let where = parts.map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`)).join('').replace(/^\./, '') || 'the sheet';
  if (parts[0] === 'statements' && parts[1] !== undefined) {
    const id = (doc as { statements?: { id?: unknown }[] }).statements?.[Number(parts[1])]?.id;
    if (typeof id === 'string') where = `statement "${id}" (${where})`;
  }
  const params = e.params as { additionalProperty?: string; allowedValues?: unknown[] };
  if (params.additionalProperty) return `${where}: unknown key "${params.additionalProperty}"`;
  if (params.allowedValues) return `${where}: ${e.message} (${params.allowedValues.join(', ')})`;
  if (e.keyword === 'not') return `${where}: holds fields of another kind of statement than its "run" says`;
  return `${where}: ${e.message}`;
}

/** Reads a sheet file and checks it against the JSON Schema; throws InvalidInput naming the problems. */
export function readSheetFile(path: string): SheetDoc {
  const file = resolve(path);
  if (!existsSync(file)) throw new InvalidInput(`sheet file not found: ${file}`);
  const yaml = parseDocument(readFileSync(file, 'utf8'));
  if (yaml.errors.length > 0) throw new InvalidInput(`${file}: not valid YAML: ${yaml.errors[0].message}`);
  const doc: unknown = yaml.toJS();
  const validate = schemaValidator();
  if (!validate(doc)) {
    // `if`/`then` failures only repeat the error under them.
    const problems = [...new Set((validate.errors ?? []).filter((e) => e.keyword !== 'if').map((e) => describeSchemaError(e, doc)))];
    throw new InvalidInput(`${file} does not match the sheet schema:\n  ${problems.slice(0, 8).join('\n  ')}`);
  }
  return doc as SheetDoc;
}

/** The sheet's name when the file gives none: its file name without `.sheet.yaml`. */
function nameFromFile(file: string): string {
  return safeName(basename(file).replace(/\.sheet\.ya?ml$|\.ya?ml$/, ''));
}

/** Reads, checks and plans a sheet file (tollgate 1); nothing runs. */
export function planSheetFile(path: string): SheetPlan {
  return planSheet(readSheetFile(path), nameFromFile(path), resolve(path));
}

/** What `dex sheet` was asked for besides the file. */
export interface SheetRequest {
  confirm?: boolean;
  llm?: string;
}

/**
 * Turns a plan into the workflow's input: every action fully decided here (models, task inputs,
 * repositories), so the workflow never reads configuration. Throws InvalidInput before anything starts.
 */
export function buildSheetInput(path: string, plan: SheetPlan, req: SheetRequest, settings: Settings, env: NodeJS.ProcessEnv = process.env): SheetInput {
  const cwd = dirname(resolve(path));
  const config = loadDexConfig(cwd);
  const kinds = plan.statements.flatMap((s) => [s.doc.run, ...(s.doc.undo ? [s.doc.undo.run] : [])]);
  const llm: LlmSpec | undefined = kinds.some((k) => k !== 'shell') ? parseLlmSpec(req.llm, env) : undefined;

  const actionOf = (id: string, a: ActionDoc, step: 'do' | 'undo'): StatementAction => {
    switch (a.run) {
      case 'shell':
        return { run: 'shell', command: a.command! };
      case 'llm': {
        const model = a.model ?? (llm?.kind === 'anthropic' && llm.model ? llm.model : config.models.default);
        checkPriced(model, `statement "${id}"`);
        return { run: 'llm', prompt: a.prompt!, model, maxTokens: a.maxTokens ?? config.maxTokens };
      }
      case 'task': {
        const repo = resolve(cwd, a.repo ?? '.');
        const { input } = buildTaskInput({ title: a.title!, description: a.description, repo, llm: req.llm }, settings, env);
        return { run: 'task', task: { ...input, taskId: sheetTaskId(id, step) } };
      }
    }
  };

  const statements: PlannedStatement[] = plan.statements.map((s) => ({
    index: s.index,
    id: s.id,
    depth: s.depth,
    ...(s.produces ? { produces: s.produces } : {}),
    consumes: s.consumes,
    needs: s.needs,
    action: actionOf(s.id, s.doc, 'do'),
    ...(s.doc.undo ? { undo: actionOf(s.id, s.doc.undo, 'undo') } : {}),
  }));
  return {
    name: plan.name,
    transaction: plan.transaction,
    maxParallel: plan.maxParallel,
    confirm: req.confirm ?? false,
    statements,
    phases: plan.phases,
    hostQueue: settings.hostQueue,
    cwd,
    ...(llm ? { llm } : {}),
    commandTimeoutMs: config.tools.commandTimeoutMs,
  };
}

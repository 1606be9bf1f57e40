import Ajv, { type ErrorObject } from 'ajv';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { safeName, sheetTaskId } from '../../core/run/ids';
import { planSheet, type ActionDoc, type SheetDoc, type SheetPlan } from '../../core/parsing/sheet';
import type { PlannedStatement, SheetInput, SourceSpan, StatementAction } from '../../core/sheet/sheet-types';
import type { LlmSpec } from '../../core/run/run-types';
import { InvalidInput } from '../../core/run/invalid-input';
import { parseYamlInput, pointerPath, type YamlInput } from '../../core/parsing/yaml-input';
import { loadDexConfig } from '../config/config-file';
import { statementSpans } from '../render/sheet-spans';
import { checkPriced, parseLlmSpec } from './llm-spec';
import type { Settings } from '../settings';
import { buildTaskInput } from './task-request';

/** The published JSON Schema of sheet files (docs/interfaces.md#files). */
const SHEET_SCHEMA_PATH = join(__dirname, '..', '..', 'schemas', 'sheet.schema.json');

let validator: ReturnType<Ajv['compile']> | undefined;

function schemaValidator(): ReturnType<Ajv['compile']> {
  validator ??= new Ajv({ allErrors: true, allowUnionTypes: true }).compile(JSON.parse(readFileSync(SHEET_SCHEMA_PATH, 'utf8')));
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

/** The first schema problem in one line: its place in the file, the statement, what is wrong, and how many more there are. */
function schemaError(yaml: YamlInput, doc: unknown, errors: ErrorObject[]): InvalidInput {
  // `if`/`then` failures only repeat the error under them.
  const telling = errors.filter((e) => e.keyword !== 'if');
  // The first statement at fault, and in it an unknown key before what the kind rules then miss
  // (`cmd:` for `command:` also leaves `command` missing).
  const statementOf = (e: ErrorObject) => Number(/^\/statements\/(\d+)/.exec(e.instancePath)?.[1] ?? -1);
  const rank = (e: ErrorObject) => (e.keyword === 'additionalProperties' ? 0 : e.keyword === 'required' || e.keyword === 'not' ? 2 : 1);
  const first = [...telling].sort((a, b) => statementOf(a) - statementOf(b) || rank(a) - rank(b))[0] ?? errors[0];
  const more = new Set(telling.map((e) => describeSchemaError(e, doc))).size - 1;
  const place = yaml.placeOf(pointerPath(first.instancePath), (first.params as { additionalProperty?: string }).additionalProperty);
  return new InvalidInput(`${place}: ${describeSchemaError(first, doc)}${more > 0 ? ` (and ${more} more problem${more === 1 ? '' : 's'})` : ''}`);
}

/** A sheet file read and checked against the JSON Schema: its content, and where in the file things are. */
interface SheetSource {
  file: string;
  doc: SheetDoc;
  yaml: YamlInput;
  spans: (SourceSpan | undefined)[];
}

/** Reads a sheet file and checks it against the JSON Schema; throws InvalidInput in one line naming the first problem and its place. */
function readSheetFile(path: string): SheetSource {
  const file = resolve(path);
  if (!existsSync(file)) throw new InvalidInput(`sheet file not found: ${file}`);
  const text = readFileSync(file, 'utf8');
  const yaml = parseYamlInput(text, file);
  const validate = schemaValidator();
  if (!validate(yaml.value)) throw schemaError(yaml, yaml.value, validate.errors ?? []);
  return { file, doc: yaml.value as SheetDoc, yaml, spans: statementSpans(text) };
}

/** The sheet's name when the file gives none: its file name without `.sheet.yaml`. */
function nameFromFile(file: string): string {
  return safeName(basename(file).replace(/\.sheet\.ya?ml$|\.ya?ml$/, ''));
}

/** Reads, checks and plans a sheet file (tollgate 1), a `for_each` file of targets with it; nothing runs. */
export function planSheetFile(path: string): SheetPlan {
  const { file, doc, yaml, spans } = readSheetFile(path);
  const set = doc.for_each;
  if (set === undefined || Array.isArray(set)) {
    return planSheet(doc, nameFromFile(file), { file, spans, forEachPlace: yaml.placeOf(['for_each']) });
  }
  const targetsFile = resolve(dirname(file), set.file);
  const targets = readTargetsFile(targetsFile, yaml.placeOf(['for_each', 'file']));
  return planSheet({ ...doc, for_each: targets }, nameFromFile(file), { file, spans, forEachPlace: targetsFile });
}

/** The targets in a `for_each` file: one a line, blank lines and `#` comment lines left out. */
function readTargetsFile(path: string, place: string): string[] {
  if (!existsSync(path)) throw new InvalidInput(`${place}: for_each file not found: ${path}`);
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** What `dex sheet` was asked for besides the file. */
interface SheetRequest {
  confirm?: boolean;
  llm?: string;
  /** Where a task statement works, given its repository: a replay's copy of it. @default the repository itself */
  repoOf?: (repo: string) => string;
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
    const where = `${resolve(path)}: statement "${id}"${step === 'undo' ? ' (undo)' : ''}`;
    switch (a.run) {
      case 'shell':
        return { run: 'shell', command: a.command! };
      case 'llm': {
        const model = a.model ?? (llm?.kind === 'anthropic' && llm.model ? llm.model : config.models.default);
        checkPriced(model, where);
        return { run: 'llm', prompt: a.prompt!, model, maxTokens: a.maxTokens ?? config.maxTokens };
      }
      case 'task': {
        const named = resolve(cwd, a.repo ?? '.');
        const repo = req.repoOf ? req.repoOf(named) : named;
        try {
          const { input } = buildTaskInput({ title: a.title!, description: a.description, repo, llm: req.llm }, settings, env);
          return { run: 'task', task: { ...input, taskId: sheetTaskId(id, step) } };
        } catch (err) {
          if (err instanceof InvalidInput) throw new InvalidInput(`${where}: ${err.message}`);
          throw err;
        }
      }
    }
  };

  const statements: PlannedStatement[] = plan.statements.map((s) => ({
    index: s.index,
    id: s.id,
    ...(s.span ? { span: s.span } : {}),
    source: s.source,
    ...(s.target !== undefined ? { target: s.target } : {}),
    depth: s.depth,
    ...(s.produces ? { produces: s.produces } : {}),
    consumes: s.consumes,
    needs: s.needs,
    action: actionOf(s.id, s.doc, 'do'),
    ...(s.doc.undo ? { undo: actionOf(s.id, s.doc.undo, 'undo') } : {}),
  }));
  return {
    name: plan.name,
    file: resolve(path),
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

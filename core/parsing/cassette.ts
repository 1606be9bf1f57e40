/**
 * Replay cassettes (docs/interfaces.md#the-agent-and-the-model): JSON Lines of recorded Messages API responses, each for a
 * task and phase or `*`. Pure: parsing and matching only; reading files and claiming lines
 * belong to the callers.
 */
import { InvalidInput } from '../run/invalid-input';

/** The token counts of a recorded response, as the Messages API reports them. */
export interface CassetteUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  [field: string]: unknown;
}

/** A content block of a recorded response (`text`, `tool_use`, …). */
export interface CassetteBlock {
  type: string;
  [field: string]: unknown;
}

/**
 * A recorded Messages API response object. A parsed cassette line has every field (parseCassette
 * checks them); a response built in code may leave out `type`, `role`, `model` and `stop_reason`.
 */
export interface CassetteResponse {
  type?: 'message';
  role?: 'assistant';
  model?: string;
  content: CassetteBlock[];
  stop_reason?: string | null;
  usage: CassetteUsage;
  [field: string]: unknown;
}

/** One line of a cassette. */
export interface CassetteLine {
  /** 1-based line number in the file, blank lines counted. */
  line: number;
  /** Task id, or `*` for any. */
  task: string;
  /** Phase name, or `*` for any. */
  phase: string;
  response: CassetteResponse;
  /** The model-call key of a recorded line (`record:FILE`); replay ignores it. */
  call?: string;
}

/**
 * A recorded cassette line as text: `call` first, so a recorder finds a call's line by its key,
 * then the fields replay reads (docs/interfaces.md#recording-a-run).
 */
export function recordedLineText(call: string, task: string, phase: string, response: CassetteResponse): string {
  return JSON.stringify({ call, task, phase, response });
}

/**
 * Parses cassette `text`, checking each line against the Messages API's response shape (every
 * content block's required fields); throws InvalidInput `SOURCE:LINE: <the field and the fault>`.
 */
export function parseCassette(text: string, source: string): CassetteLine[] {
  const lines: CassetteLine[] = [];
  text.split('\n').forEach((raw, index) => {
    const trimmed = raw.trim();
    if (trimmed === '') return;
    const line = index + 1;
    const fail = (what: string): never => {
      throw new InvalidInput(`${source}:${line}: ${what}`);
    };
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (err) {
      fail(`not valid JSON (${(err as Error).message})`);
    }
    if (!isObject(value)) return fail('expected a JSON object {"task", "phase", "response"}');
    if (typeof value.task !== 'string' || value.task === '') fail('"task" must be a non-empty string (a task id or "*")');
    if (typeof value.phase !== 'string' || value.phase === '') fail('"phase" must be a non-empty string (a phase name or "*")');
    const parsed: CassetteLine = { line, task: value.task as string, phase: value.phase as string, response: checkResponse(value.response, fail) };
    if (typeof value.call === 'string') parsed.call = value.call;
    lines.push(parsed);
  });
  return lines;
}

/** Line numbers of the `lines` usable for `task` and `phase` (exact or `*`), in file order. */
export function matchingLineNumbers(lines: readonly CassetteLine[], task: string, phase: string): number[] {
  return lines
    .filter((l) => (l.task === task || l.task === '*') && (l.phase === phase || l.phase === '*'))
    .map((l) => l.line);
}

/** What a field must hold: a check, and the words for it. */
type FieldRule = [(value: unknown) => boolean, string];

const STRING: FieldRule = [(v) => typeof v === 'string', 'a string'];
const ID: FieldRule = [(v) => typeof v === 'string' && v !== '', 'a non-empty string'];
const OBJECT: FieldRule = [isObject, 'an object'];
const PRESENT: FieldRule = [(v) => v !== undefined, 'present'];
const TOKENS: FieldRule = [(v) => Number.isInteger(v) && (v as number) >= 0, 'a whole number of tokens'];
const TOKENS_OR_NULL: FieldRule = [(v) => v === null || TOKENS[0](v), 'a whole number of tokens or null'];
const SERVER_TOOL_RESULT: Record<string, FieldRule> = { tool_use_id: ID, content: PRESENT };

/** The fields of the response itself. */
const RESPONSE_FIELDS: Record<string, FieldRule> = {
  type: [(v) => v === 'message', '"message"'],
  role: [(v) => v === 'assistant', '"assistant"'],
  model: ID,
  content: [Array.isArray, 'an array of content blocks'],
  stop_reason: [(v) => v === null || typeof v === 'string', 'a string or null'],
  usage: OBJECT,
};

/**
 * The fields the Messages API requires of each content block type it answers with; any other
 * type is refused. A `tool_use` may name a tool dex does not offer: a model can do that, and dex
 * answers it with a tool error, so a cassette may record it.
 */
const BLOCK_FIELDS: Record<string, Record<string, FieldRule>> = {
  text: { text: STRING },
  tool_use: { id: ID, name: ID, input: OBJECT },
  thinking: { thinking: STRING, signature: STRING },
  redacted_thinking: { data: STRING },
  server_tool_use: { id: ID, name: ID, input: OBJECT },
  web_search_tool_result: SERVER_TOOL_RESULT,
  web_fetch_tool_result: SERVER_TOOL_RESULT,
  code_execution_tool_result: SERVER_TOOL_RESULT,
  bash_code_execution_tool_result: SERVER_TOOL_RESULT,
  text_editor_code_execution_tool_result: SERVER_TOOL_RESULT,
  tool_search_tool_result: SERVER_TOOL_RESULT,
  container_upload: { file_id: ID },
};

function checkResponse(response: unknown, fail: (what: string) => never): CassetteResponse {
  if (response === undefined) return fail('the line has no "response"');
  if (!isObject(response)) return fail(`"response" must be a Messages API response object, not ${shown(response)}`);
  checkFields('response', response, RESPONSE_FIELDS, fail);
  const usage = response.usage as Record<string, unknown>;
  checkFields('response.usage', usage, { input_tokens: TOKENS, output_tokens: TOKENS }, fail);
  for (const field of ['cache_creation_input_tokens', 'cache_read_input_tokens']) {
    if (usage[field] !== undefined) checkFields('response.usage', usage, { [field]: TOKENS_OR_NULL }, fail);
  }
  const toolUseIds = new Set<string>();
  (response.content as unknown[]).forEach((block, i) => {
    const where = `response.content[${i}]`;
    if (!isObject(block)) return fail(`${where} must be a content block object, not ${shown(block)}`);
    if (typeof block.type !== 'string') return fail(`${where} has no "type"`);
    const fields = BLOCK_FIELDS[block.type];
    if (!fields) return fail(`${where} has the unknown block type ${JSON.stringify(block.type)} (known: ${Object.keys(BLOCK_FIELDS).join(', ')})`);
    checkFields(`${where} (${block.type})`, block, fields, fail);
    if (block.type !== 'tool_use') return;
    // Tool results are stored by tool_use id: a second block with the same id would get the first's result.
    if (toolUseIds.has(block.id as string)) fail(`${where} (tool_use) has the id ${JSON.stringify(block.id)} of an earlier tool_use`);
    toolUseIds.add(block.id as string);
  });
  return response as CassetteResponse;
}

/** Fails on the first of `rules` that `object` (at `where`) breaks: a field missing, or of the wrong kind. */
function checkFields(where: string, object: Record<string, unknown>, rules: Record<string, FieldRule>, fail: (what: string) => never): void {
  for (const [field, [holds, expected]] of Object.entries(rules)) {
    const value = object[field];
    if (value === undefined) fail(`${where} has no "${field}"`);
    if (!holds(value)) fail(`${where}: "${field}" must be ${expected}, not ${shown(value)}`);
  }
}

/** A wrong value for a message: a short scalar as written in JSON, anything else by its kind. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  const json = JSON.stringify(value);
  return json.length <= 30 ? json : `a long ${typeof value}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Replay cassettes (docs/interfaces.md#the-agent-and-the-model): JSON Lines of recorded Messages API responses, or of
 * API errors, each for a task and phase or `*`. Pure: parsing and matching only; reading files and claiming lines
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

/** A line of a cassette that answers with a response. */
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

/** An API error a cassette line answers a call with, as the API reports it: its HTTP status and its error body. */
export interface CassetteError {
  /** The HTTP status, 400 to 599: 529 overloaded, 429 rate limited, 400 a bad request… */
  status: number;
  /** The error body's type: `overloaded_error`, `rate_limit_error`, `invalid_request_error`… */
  type: string;
  message: string;
  /** What the `retry-after` header asks for, in seconds. @default none: the retry policy's own backoff */
  retryAfterSeconds?: number;
}

/** A cassette line that answers the call that takes it with an API error instead of a response. */
interface CassetteErrorLine extends Omit<CassetteLine, 'response' | 'call'> {
  error: CassetteError;
}

/** A parsed cassette line: a response, or an API error. */
export type CassetteEntry = CassetteLine | CassetteErrorLine;

/** True when `entry` answers with an API error. */
export const isErrorLine = (entry: CassetteEntry): entry is CassetteErrorLine => 'error' in entry;

/**
 * A recorded cassette line as text: `call` first, so a recorder finds a call's line by its key,
 * then the fields replay reads (docs/interfaces.md#recording-a-run).
 */
export function recordedLineText(call: string, task: string, phase: string, response: CassetteResponse): string {
  return JSON.stringify({ call, task, phase, response });
}

/** A recorded error line as text: the API error an attempt of call `call` got before it was retried. */
export function recordedErrorLineText(call: string, task: string, phase: string, error: CassetteError): string {
  return JSON.stringify({ call, task, phase, error });
}

/**
 * Parses cassette `text`, checking each line against the Messages API's response shape (every
 * content block's required fields) or, for an error line, the error's; throws InvalidInput
 * `SOURCE:LINE: <the field and the fault>`.
 */
export function parseCassette(text: string, source: string): CassetteEntry[] {
  const lines: CassetteEntry[] = [];
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
    if (value.error !== undefined) {
      if (value.response !== undefined) fail('a line has a "response" or an "error", not both');
      return void lines.push({ line, task: value.task as string, phase: value.phase as string, error: checkError(value.error, fail) });
    }
    const parsed: CassetteLine = { line, task: value.task as string, phase: value.phase as string, response: checkResponse(value.response, fail) };
    if (typeof value.call === 'string') parsed.call = value.call;
    lines.push(parsed);
  });
  return lines;
}

/** Line numbers of the `lines` usable for `task` and `phase` (exact or `*`), in file order. */
export function matchingLineNumbers(lines: readonly CassetteEntry[], task: string, phase: string): number[] {
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
  if (response === undefined) return fail('the line has neither a "response" nor an "error"');
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

/** The fields of an error line's `error`. */
const ERROR_FIELDS: Record<string, FieldRule> = {
  status: [(v) => Number.isInteger(v) && (v as number) >= 400 && (v as number) <= 599, 'an HTTP error status from 400 to 599'],
  type: ID,
  message: STRING,
};

function checkError(error: unknown, fail: (what: string) => never): CassetteError {
  if (!isObject(error)) return fail(`"error" must be an object {"status", "type", "message"}, not ${shown(error)}`);
  checkFields('error', error, ERROR_FIELDS, fail);
  const unknown = Object.keys(error).find((key) => !(key in ERROR_FIELDS) && key !== 'retryAfterSeconds');
  if (unknown) fail(`error has the unknown field "${unknown}" (known: status, type, message, retryAfterSeconds)`);
  const after = error.retryAfterSeconds;
  if (after !== undefined && !(typeof after === 'number' && Number.isFinite(after) && after >= 0)) {
    fail(`error: "retryAfterSeconds" must be a number of seconds, not ${shown(after)}`);
  }
  return error as unknown as CassetteError;
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

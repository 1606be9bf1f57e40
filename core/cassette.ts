/**
 * Replay cassettes (docs/interfaces.md#the-agent-and-the-model): JSON Lines of recorded Messages API responses, each for a
 * task and phase or `*`. Pure: parsing and matching only; reading files and claiming lines
 * belong to the callers.
 */
import { InvalidInput } from './invalid-input';

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

/** A recorded Messages API response object. */
export interface CassetteResponse {
  content: CassetteBlock[];
  usage: CassetteUsage;
  stop_reason?: string | null;
  model?: string;
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
}

/** Parses cassette `text`; throws InvalidInput naming `source` (usually the file path), the line and the fault. */
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
    lines.push({ line, task: value.task as string, phase: value.phase as string, response: checkResponse(value.response, fail) });
  });
  return lines;
}

/** Line numbers of the `lines` usable for `task` and `phase` (exact or `*`), in file order. */
export function matchingLineNumbers(lines: readonly CassetteLine[], task: string, phase: string): number[] {
  return lines
    .filter((l) => (l.task === task || l.task === '*') && (l.phase === phase || l.phase === '*'))
    .map((l) => l.line);
}

function checkResponse(response: unknown, fail: (what: string) => never): CassetteResponse {
  if (!isObject(response)) return fail('"response" must be a Messages API response object');
  if (!Array.isArray(response.content)) fail('"response.content" must be an array of content blocks');
  (response.content as unknown[]).forEach((block, i) => {
    if (!isObject(block) || typeof block.type !== 'string') fail(`"response.content[${i}]" must be an object with a string "type"`);
  });
  const usage = response.usage;
  if (!isObject(usage)) return fail('"response.usage" must be an object');
  for (const field of ['input_tokens', 'output_tokens']) {
    if (typeof usage[field] !== 'number') fail(`"response.usage.${field}" must be a number`);
  }
  for (const field of ['cache_creation_input_tokens', 'cache_read_input_tokens']) {
    if (usage[field] !== undefined && usage[field] !== null && typeof usage[field] !== 'number') {
      fail(`"response.usage.${field}" must be a number or null`);
    }
  }
  return response as CassetteResponse;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

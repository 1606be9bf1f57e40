import { isErrorLine, parseCassette, type CassetteBlock, type CassetteLine } from '../../../core/parsing/cassette';

/** The model the test cassettes answer as. */
export const TEST_MODEL = 'claude-sonnet-4-6';

let nextToolId = 1;
let nextLine = 1;

/** Usage numbers that differ per line, so a wrong sum shows. */
function usage(seed: number) {
  return { input_tokens: 300 + seed, output_tokens: 40 + seed, cache_creation_input_tokens: seed === 1 ? 1200 : 0, cache_read_input_tokens: seed === 1 ? 0 : 1200 };
}

function line(task: string, content: CassetteBlock[], stopReason: string): CassetteLine {
  const n = nextLine++;
  return {
    line: n,
    task,
    phase: 'implement',
    response: { id: `msg_test_${n}`, type: 'message', role: 'assistant', model: TEST_MODEL, content, stop_reason: stopReason, stop_sequence: null, usage: usage(n) },
  };
}

/** A turn that calls tools: `[name, input]` pairs. */
export function toolTurn(task: string, ...calls: [string, Record<string, unknown>][]): CassetteLine {
  return line(
    task,
    calls.map(([name, input]) => ({ type: 'tool_use', id: `toolu_test_${nextToolId++}`, name, input })),
    'tool_use',
  );
}

/** A turn that ends with a completion object. */
export function completionTurn(task: string, completion: Record<string, string>): CassetteLine {
  return line(task, [{ type: 'text', text: `Done here.\n\n\`\`\`json\n${JSON.stringify(completion)}\n\`\`\`` }], 'end_turn');
}

/** The same lines, answering calls of `phase` instead of `implement`. */
export function inPhase(phase: string, lines: CassetteLine[]): CassetteLine[] {
  return lines.map((l) => ({ ...l, phase }));
}

/** The turns that fix the sample repository's `sum`: read, edit, complete. */
export function fixSumTurns(task: string): CassetteLine[] {
  return [
    toolTurn(task, ['read_file', { path: 'src/math.js' }]),
    toolTurn(task, ['edit_file', { path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a + b;' }]),
    completionTurn(task, { status: 'complete', summary: 'sum adds now' }),
  ];
}

/** The cassette as JSON Lines. */
export function toJsonl(lines: CassetteLine[]): string {
  return lines.map((l) => JSON.stringify({ task: l.task, phase: l.phase, response: l.response })).join('\n') + '\n';
}

/** The token totals a run over `lines` must report. */
export function usageTotals(lines: CassetteLine[]) {
  return lines.reduce(
    (t, l) => ({
      input: t.input + l.response.usage.input_tokens,
      output: t.output + l.response.usage.output_tokens,
      cacheRead: t.cacheRead + (l.response.usage.cache_read_input_tokens ?? 0),
      cacheWrite: t.cacheWrite + (l.response.usage.cache_creation_input_tokens ?? 0),
    }),
    { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  );
}

/** The response lines of cassette `text` (every line, in a cassette without error lines). */
export function parsedResponses(text: string, source: string): CassetteLine[] {
  return parseCassette(text, source).filter((l): l is CassetteLine => !isErrorLine(l));
}

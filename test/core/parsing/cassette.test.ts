import { describe, expect, it } from 'vitest';
import { matchingLineNumbers, parseCassette } from '../../../core/parsing/cassette';
import { InvalidInput } from '../../../core/run/invalid-input';
import { parsedResponses } from '../../support/model/cassette-builder';

const response = (text: string) => ({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-6',
  content: [{ type: 'text', text }] as Record<string, unknown>[],
  stop_reason: 'end_turn' as string | null,
  usage: { input_tokens: 10, output_tokens: 2 } as Record<string, unknown>,
});
const line = (task: string, phase: string, text: string) => JSON.stringify({ task, phase, response: response(text) });
/** A line whose response is `response('x')` changed by `change`. */
const changed = (change: (r: ReturnType<typeof response>) => void) => {
  const r = response('x');
  change(r);
  return JSON.stringify({ task: 'T1', phase: 'p', response: r });
};
/** A line answering with these content blocks. */
const blocks = (...content: Record<string, unknown>[]) => changed((r) => (r.content = content));
const toolUse = { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a' } };
/** `block` without `field`. */
const overloaded = { status: 529, type: 'overloaded_error', message: 'Overloaded' };
const without = (block: Record<string, unknown>, field: string) => Object.fromEntries(Object.entries(block).filter(([k]) => k !== field));

describe('parseCassette', () => {
  it('parses lines, ignores blank ones and keeps file line numbers', () => {
    const text = [line('T1', 'implement', 'a'), '', '   ', line('*', '*', 'b'), ''].join('\n');
    const lines = parsedResponses(text, 'c.jsonl');
    expect(lines.map((l) => [l.line, l.task, l.phase])).toEqual([
      [1, 'T1', 'implement'],
      [4, '*', '*'],
    ]);
    expect(lines[1].response).toEqual(response('b'));
  });

  it('parses an error line: an API error to answer a call with, its retry-after optional', () => {
    const text = [JSON.stringify({ task: 'T1', phase: 'implement', error: overloaded }), JSON.stringify({ task: '*', phase: '*', error: { ...overloaded, retryAfterSeconds: 30 } }), line('T1', 'implement', 'a')].join('\n');
    expect(parseCassette(text, 'c.jsonl')).toEqual([
      { line: 1, task: 'T1', phase: 'implement', error: overloaded },
      { line: 2, task: '*', phase: '*', error: { ...overloaded, retryAfterSeconds: 30 } },
      { line: 3, task: 'T1', phase: 'implement', response: response('a') },
    ]);
  });

  it('accepts CRLF line endings', () => {
    expect(parseCassette(`${line('T1', 'p', 'a')}\r\n${line('T2', 'p', 'b')}\r\n`, 'c.jsonl')).toHaveLength(2);
  });

  it('accepts every content block the Messages API answers with, a tool dex does not offer, and null or absent cache counts', () => {
    const text = [
      blocks(
        { type: 'thinking', thinking: 'hm', signature: 'sig' },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'text', text: 'ok', citations: null },
        toolUse,
        // The model may call a tool dex does not offer; dex answers it with a tool error.
        { type: 'tool_use', id: 'toolu_2', name: 'delete_everything', input: {} },
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } },
        { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
        { type: 'container_upload', file_id: 'file_1' },
      ),
      changed((r) => {
        r.stop_reason = null;
        r.usage = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: null, cache_read_input_tokens: 7 };
      }),
    ].join('\n');
    expect(parsedResponses(text, 'c.jsonl').map((l) => l.response.content.length)).toEqual([8, 1]);
  });

  it.each([
    ['{not json', /^c\.jsonl:2: not valid JSON \(.*\)$/],
    ['[1,2]', 'expected a JSON object {"task", "phase", "response"}'],
    [JSON.stringify({ phase: 'p', response: response('x') }), '"task" must be a non-empty string (a task id or "*")'],
    [JSON.stringify({ task: 'T1', phase: 3, response: response('x') }), '"phase" must be a non-empty string (a phase name or "*")'],
    [JSON.stringify({ task: 'T1', phase: 'p' }), 'the line has neither a "response" nor an "error"'],
    [JSON.stringify({ task: 'T1', phase: 'p', response: response('x'), error: overloaded }), 'a line has a "response" or an "error", not both'],
    [JSON.stringify({ task: 'T1', phase: 'p', error: 'Overloaded' }), '"error" must be an object {"status", "type", "message"}, not "Overloaded"'],
    [JSON.stringify({ task: 'T1', phase: 'p', error: { ...overloaded, status: 200 } }), 'error: "status" must be an HTTP error status from 400 to 599, not 200'],
    [JSON.stringify({ task: 'T1', phase: 'p', error: { ...overloaded, status: '529' } }), 'error: "status" must be an HTTP error status from 400 to 599, not "529"'],
    [JSON.stringify({ task: 'T1', phase: 'p', error: without(overloaded, 'type') }), 'error has no "type"'],
    [JSON.stringify({ task: 'T1', phase: 'p', error: without(overloaded, 'message') }), 'error has no "message"'],
    [JSON.stringify({ task: 'T1', phase: 'p', error: { ...overloaded, retryAfterSeconds: '30' } }), 'error: "retryAfterSeconds" must be a number of seconds, not "30"'],
    [JSON.stringify({ task: 'T1', phase: 'p', error: { ...overloaded, retryAfter: 30 } }), 'error has the unknown field "retryAfter" (known: status, type, message, retryAfterSeconds)'],
    [JSON.stringify({ task: 'T1', phase: 'p', response: 'hi' }), '"response" must be a Messages API response object, not "hi"'],
    [changed((r) => (r.type = 'error')), 'response: "type" must be "message", not "error"'],
    [changed((r) => (r.role = 'user')), 'response: "role" must be "assistant", not "user"'],
    [changed((r) => delete (r as Partial<typeof r>).model), 'response has no "model"'],
    [changed((r) => ((r as Record<string, unknown>).content = 'hi')), 'response: "content" must be an array of content blocks, not "hi"'],
    [changed((r) => delete (r as Partial<typeof r>).stop_reason), 'response has no "stop_reason"'],
    [changed((r) => ((r as Record<string, unknown>).stop_reason = 3)), 'response: "stop_reason" must be a string or null, not 3'],
    [changed((r) => delete (r as Partial<typeof r>).usage), 'response has no "usage"'],
    [changed((r) => (r.usage = { input_tokens: 1 })), 'response.usage has no "output_tokens"'],
    [changed((r) => (r.usage = { input_tokens: '12', output_tokens: 1 })), 'response.usage: "input_tokens" must be a whole number of tokens, not "12"'],
    [changed((r) => (r.usage = { input_tokens: 1, output_tokens: -1 })), 'response.usage: "output_tokens" must be a whole number of tokens, not -1'],
    [
      changed((r) => (r.usage = { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 'x' })),
      'response.usage: "cache_read_input_tokens" must be a whole number of tokens or null, not "x"',
    ],
    [blocks({ type: 'text', text: 'a' }, 'hi' as unknown as Record<string, unknown>), 'response.content[1] must be a content block object, not "hi"'],
    [blocks({ text: 'x' }), 'response.content[0] has no "type"'],
    [blocks({ type: 'image', source: {} }), /^c\.jsonl:2: response\.content\[0\] has the unknown block type "image" \(known: text, tool_use, thinking, .*\)$/],
    [blocks({ type: 'text' }), 'response.content[0] (text) has no "text"'],
    [blocks({ type: 'text', text: 'a' }, without(toolUse, 'input')), 'response.content[1] (tool_use) has no "input"'],
    [blocks({ ...toolUse, input: null }), 'response.content[0] (tool_use): "input" must be an object, not null'],
    [blocks({ ...toolUse, input: ['a'] }), 'response.content[0] (tool_use): "input" must be an object, not an array'],
    [blocks({ ...toolUse, input: '{"path":"a"}' }), 'response.content[0] (tool_use): "input" must be an object, not "{\\"path\\":\\"a\\"}"'],
    [blocks(without(toolUse, 'id')), 'response.content[0] (tool_use) has no "id"'],
    [blocks({ ...toolUse, id: '' }), 'response.content[0] (tool_use): "id" must be a non-empty string, not ""'],
    [blocks(without(toolUse, 'name')), 'response.content[0] (tool_use) has no "name"'],
    [blocks(toolUse, { ...toolUse, input: {} }), 'response.content[1] (tool_use) has the id "toolu_1" of an earlier tool_use'],
    [blocks({ type: 'thinking', thinking: 'hm' }), 'response.content[0] (thinking) has no "signature"'],
    [blocks({ type: 'redacted_thinking' }), 'response.content[0] (redacted_thinking) has no "data"'],
    [blocks({ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search' }), 'response.content[0] (server_tool_use) has no "input"'],
    [blocks({ type: 'web_search_tool_result', content: [] }), 'response.content[0] (web_search_tool_result) has no "tool_use_id"'],
  ])('refuses %s in one line naming the file, the line and the field', (bad, message) => {
    const text = `${line('T1', 'p', 'ok')}\n${bad}\n`;
    expect(() => parseCassette(text, 'c.jsonl')).toThrow(InvalidInput);
    // An error object: the message must be exactly this.
    expect(() => parseCassette(text, 'c.jsonl')).toThrow(typeof message === 'string' ? new InvalidInput(`c.jsonl:2: ${message}`) : message);
  });
});

describe('matchingLineNumbers', () => {
  const lines = parseCassette(
    [line('T1', 'implement', '1'), line('T2', 'implement', '2'), line('*', 'implement', '3'), line('T1', '*', '4'), line('T1', 'review', '5')].join('\n'),
    'c.jsonl',
  );

  it('takes exact and wildcard matches in file order', () => {
    expect(matchingLineNumbers(lines, 'T1', 'implement')).toEqual([1, 3, 4]);
    expect(matchingLineNumbers(lines, 'T1', 'review')).toEqual([4, 5]);
    expect(matchingLineNumbers(lines, 'T2', 'implement')).toEqual([2, 3]);
    expect(matchingLineNumbers(lines, 'T3', 'plan')).toEqual([]);
  });
});

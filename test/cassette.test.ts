import { describe, expect, it } from 'vitest';
import { matchingLineNumbers, parseCassette } from '../core/cassette';
import { InvalidInput } from '../core/invalid-input';

const response = (text: string) => ({
  content: [{ type: 'text', text }],
  usage: { input_tokens: 10, output_tokens: 2 },
  stop_reason: 'end_turn',
});
const line = (task: string, phase: string, text: string) => JSON.stringify({ task, phase, response: response(text) });

describe('parseCassette', () => {
  it('parses lines, ignores blank ones and keeps file line numbers', () => {
    const text = [line('T1', 'implement', 'a'), '', '   ', line('*', '*', 'b'), ''].join('\n');
    const lines = parseCassette(text, 'c.jsonl');
    expect(lines.map((l) => [l.line, l.task, l.phase])).toEqual([
      [1, 'T1', 'implement'],
      [4, '*', '*'],
    ]);
    expect(lines[1].response).toEqual(response('b'));
  });

  it('accepts CRLF line endings', () => {
    expect(parseCassette(`${line('T1', 'p', 'a')}\r\n${line('T2', 'p', 'b')}\r\n`, 'c.jsonl')).toHaveLength(2);
  });

  it.each([
    ['{not json', /c\.jsonl:2: not valid JSON/],
    ['[1,2]', /c\.jsonl:2: expected a JSON object/],
    [JSON.stringify({ phase: 'p', response: response('x') }), /c\.jsonl:2: "task" must be/],
    [JSON.stringify({ task: 'T1', phase: 3, response: response('x') }), /c\.jsonl:2: "phase" must be/],
    [JSON.stringify({ task: 'T1', phase: 'p' }), /c\.jsonl:2: "response" must be/],
    [JSON.stringify({ task: 'T1', phase: 'p', response: { content: 'hi', usage: {} } }), /c\.jsonl:2: "response.content" must be an array/],
    [JSON.stringify({ task: 'T1', phase: 'p', response: { content: [{ text: 'x' }], usage: {} } }), /c\.jsonl:2: "response.content\[0\]"/],
    [JSON.stringify({ task: 'T1', phase: 'p', response: { content: [] } }), /c\.jsonl:2: "response.usage" must be an object/],
    [JSON.stringify({ task: 'T1', phase: 'p', response: { content: [], usage: { input_tokens: 1 } } }), /"response.usage.output_tokens" must be a number/],
    [
      JSON.stringify({ task: 'T1', phase: 'p', response: { content: [], usage: { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 'x' } } }),
      /"response.usage.cache_read_input_tokens" must be a number or null/,
    ],
  ])('reports %s with file and line', (bad, message) => {
    const text = `${line('T1', 'p', 'ok')}\n${bad}\n`;
    expect(() => parseCassette(text, 'c.jsonl')).toThrow(InvalidInput);
    expect(() => parseCassette(text, 'c.jsonl')).toThrow(message);
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

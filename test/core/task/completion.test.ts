import { describe, expect, it } from 'vitest';
import { extractCompletion } from '../../../core/task/completion';

describe('extractCompletion', () => {
  it('reads the whole text as JSON', () => {
    expect(extractCompletion('  {"status":"complete","summary":"added sum"}\n')).toEqual({ status: 'complete', summary: 'added sum' });
  });

  it('reads a fenced json block', () => {
    const text = 'Done.\n```json\n{"status": "blocked", "reason": "which database?"}\n```\nThanks';
    expect(extractCompletion(text)).toEqual({ status: 'blocked', reason: 'which database?' });
  });

  it('prefers the fenced block over an earlier bare object', () => {
    const text = 'first {"status":"continue","reason":"bare"}\n```json\n{"status":"complete","summary":"fenced"}\n```';
    expect(extractCompletion(text)).toEqual({ status: 'complete', summary: 'fenced' });
  });

  it('skips a fenced block that is not a completion and goes on to the next rule', () => {
    const text = '```json\n{"path":"a.js"}\n```\nresult: {"status":"complete","summary":"ok"}';
    expect(extractCompletion(text)).toEqual({ status: 'complete', summary: 'ok' });
  });

  it('finds the first balanced object that is a completion, skipping other objects', () => {
    const text = 'I wrote {"a": {"b": 1}} and function f() { return 1; } then {"status":"continue","reason":"more to do"} and {"status":"complete","summary":"later"}';
    expect(extractCompletion(text)).toEqual({ status: 'continue', reason: 'more to do' });
  });

  it('respects braces and escaped quotes inside strings when balancing', () => {
    const text = 'Result: {"status":"complete","summary":"fixed the \\"}\\" bug in {curly} handling"} bye';
    expect(extractCompletion(text)).toEqual({ status: 'complete', summary: 'fixed the "}" bug in {curly} handling' });
  });

  it('finds a completion nested in an outer object that is not one', () => {
    expect(extractCompletion('{"result": {"status":"complete","summary":"inner"}}')).toEqual({ status: 'complete', summary: 'inner' });
  });

  it('drops fields other than status and summary or reason', () => {
    expect(extractCompletion('{"status":"complete","summary":"s","extra":1}')).toEqual({ status: 'complete', summary: 's' });
  });

  it('rejects objects with the wrong fields for their status', () => {
    expect(extractCompletion('{"status":"complete","reason":"x"}')).toBeNull();
    expect(extractCompletion('{"status":"blocked","summary":"x"}')).toBeNull();
    expect(extractCompletion('{"status":"done","summary":"x"}')).toBeNull();
    expect(extractCompletion('{"status":"complete","summary":42}')).toBeNull();
  });

  it('returns null for text without a completion', () => {
    expect(extractCompletion('')).toBeNull();
    expect(extractCompletion('All done, the tests pass.')).toBeNull();
    expect(extractCompletion('unbalanced {"status":"complete","summary":"x"')).toBeNull();
  });

  it('finds an object inside other JSON by balancing', () => {
    expect(extractCompletion('[{"status":"complete","summary":"in an array"}]')).toEqual({ status: 'complete', summary: 'in an array' });
  });

  it('finds the completion after many code objects that are not completions', () => {
    const code = 'const o = {"k": [1, 2], "s": "}"}; if (x) { y(); }\n'.repeat(5_000);
    expect(extractCompletion(`${code}{"status":"complete","summary":"end"}`)).toEqual({ status: 'complete', summary: 'end' });
  });
});

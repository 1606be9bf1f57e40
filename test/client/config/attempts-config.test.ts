import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDexConfig } from '../../../client/config/config-file';
import { InvalidInput } from '../../../core/run/invalid-input';

// Through the whole config parser: the section is wired where the others are, and fails as they do.
const repo = mkdtempSync(join(tmpdir(), 'dex-attempts-config-'));
afterAll(() => rmSync(repo, { recursive: true, force: true }));
const attemptsOf = (yaml: string) => parseDexConfig(yaml, repo).attempts;

describe('attempts: in dex.config.yaml (docs/attempts.md)', () => {
  it('is off without the key, with 1, and with a count of 1 in a map', () => {
    expect(attemptsOf('')).toBeUndefined();
    expect(attemptsOf('attempts: 1')).toBeUndefined();
    expect(attemptsOf('attempts: { count: 1, stopWhen: first-pass }')).toBeUndefined();
    expect('attempts' in parseDexConfig('', repo)).toBe(false);
  });

  it('takes a number as the count', () => {
    expect(attemptsOf('attempts: 3')).toEqual({ count: 3 });
    expect(attemptsOf('attempts: 8')).toEqual({ count: 8 });
  });

  it('takes a map of every key, the time limit read into ms as a gate deadline is written', () => {
    const yaml = [
      'attempts:',
      '  count: 3',
      '  variants:',
      '    - { model: claude-opus-4-5, temperature: 0.2 }',
      '    - { hint: try the smallest change }',
      '  stopWhen: first-pass',
      '  attemptBudgetUsd: 0.5',
      '  timeLimit: 30m',
      '  choose: person',
      '  weights: { line: 0.1, usd: 0 }',
    ].join('\n');
    expect(attemptsOf(yaml)).toEqual({
      count: 3,
      variants: [{ model: 'claude-opus-4-5', temperature: 0.2 }, { hint: 'try the smallest change' }],
      stopWhen: 'first-pass',
      attemptBudgetUsd: 0.5,
      timeLimitMs: 30 * 60_000,
      choose: 'person',
      weights: { line: 0.1, usd: 0 },
    });
    expect(attemptsOf('attempts: { count: 2, timeLimit: 1.5h }')?.timeLimitMs).toBe(90 * 60_000);
    expect(attemptsOf('attempts: { count: 2, timeLimit: 45s }')?.timeLimitMs).toBe(45_000);
  });

  it.each([
    ['attempts: 9', 'attempts', 'must be a whole number from 2 to 8'],
    ['attempts: 0', 'attempts', 'must be a whole number from 2 to 8'],
    ['attempts: 2.5', 'attempts', 'must be a whole number'],
    ['attempts: three', 'attempts', 'must be a number of attempts or a map'],
    ['attempts: [2]', 'attempts', 'must be a number of attempts or a map'],
    ['attempts: { stopWhen: all }', 'attempts.count', 'must be a whole number from 2 to 8'],
    ['attempts: { count: 2, tries: 3 }', 'attempts.tries', 'is not a known key'],
    ['attempts: { count: 2, variants: [] }', 'attempts.variants', 'must be a list'],
    ['attempts: { count: 2, variants: [fast] }', 'attempts.variants.0', 'must be a map'],
    ['attempts: { count: 2, variants: [{ model: "" }] }', 'attempts.variants.0.model', 'must be a model name'],
    ['attempts: { count: 2, variants: [{ temperature: 1.5 }] }', 'attempts.variants.0.temperature', 'must be a number from 0 to 1'],
    ['attempts: { count: 2, variants: [{ hint: 3 }] }', 'attempts.variants.0.hint', 'must be a line of text'],
    ['attempts: { count: 2, variants: [{ seed: 3 }] }', 'attempts.variants.0.seed', 'is not a known key'],
    ['attempts: { count: 2, stopWhen: first }', 'attempts.stopWhen', 'must be "first-pass" or "all"'],
    ['attempts: { count: 2, attemptBudgetUsd: 0 }', 'attempts.attemptBudgetUsd', 'must be a positive number'],
    ['attempts: { count: 2, timeLimit: 30 }', 'attempts.timeLimit', 'must be a duration'],
    ['attempts: { count: 2, timeLimit: soon }', 'attempts.timeLimit', 'must be a duration'],
    ['attempts: { count: 2, choose: model }', 'attempts.choose', 'must be "evidence" or "person"'],
    ['attempts: { count: 2, weights: 3 }', 'attempts.weights', 'must be a map of testFixed'],
    ['attempts: { count: 2, weights: { lines: 1 } }', 'attempts.weights.lines', 'is not a known key'],
    ['attempts: { count: 2, weights: { usd: -1 } }', 'attempts.weights.usd', 'must be a non-negative number'],
  ])('refuses %s as bad input, naming %s', (yaml, key, problem) => {
    expect(() => parseDexConfig(yaml, repo)).toThrow(InvalidInput);
    expect(() => parseDexConfig(yaml, repo)).toThrow(`dex.config.yaml: "${key}" ${problem}`);
  });
});

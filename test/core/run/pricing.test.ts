import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../../core/run/invalid-input';
import { costOf, DEFAULT_MODEL, priceOf } from '../../../core/run/pricing';

const MTOK = 1_000_000;

describe('pricing', () => {
  it('prices each kind of token separately', () => {
    expect(costOf('claude-sonnet-4-5', { input: MTOK, output: 0, cacheRead: 0, cacheWrite: 0 })).toBeCloseTo(3, 10);
    expect(costOf('claude-sonnet-4-5', { input: 0, output: MTOK, cacheRead: 0, cacheWrite: 0 })).toBeCloseTo(15, 10);
    expect(costOf('claude-sonnet-4-5', { input: 0, output: 0, cacheRead: 0, cacheWrite: MTOK })).toBeCloseTo(3.75, 10);
    expect(costOf('claude-sonnet-4-5', { input: 0, output: 0, cacheRead: MTOK, cacheWrite: 0 })).toBeCloseTo(0.3, 10);
  });

  it('sums a mixed call', () => {
    // 1200 × 15 + 300 × 75 + 1000 × 18.75 + 5000 × 1.5 = 66,750 millionths of a dollar
    expect(costOf('claude-opus-4-1', { input: 1200, output: 300, cacheWrite: 1000, cacheRead: 5000 })).toBeCloseTo(0.06675, 12);
  });

  it('matches dated ids by their longest prefix', () => {
    expect(priceOf('claude-sonnet-4-5-20250929')).toEqual(priceOf('claude-sonnet-4-5'));
    expect(priceOf('claude-sonnet-4-20250514').input).toBe(3);
    expect(priceOf('claude-opus-4-20250514').output).toBe(75);
    expect(priceOf('claude-haiku-4-5-20251001')).toEqual({ input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 });
    expect(priceOf('claude-3-5-haiku-20241022')).toEqual({ input: 0.8, output: 4, cacheWrite: 1, cacheRead: 0.08 });
  });

  it('does not let a shorter prefix claim a newer model', () => {
    expect(priceOf('claude-opus-4-5-20251101').input).toBe(5);
    expect(priceOf('claude-opus-4-6').output).toBe(25);
    expect(priceOf('claude-sonnet-4-6').input).toBe(3);
    expect(priceOf('claude-opus-4-1-20250805').input).toBe(15);
  });

  it('prices the default model', () => {
    expect(DEFAULT_MODEL).toBe('claude-sonnet-4-6');
    expect(priceOf(DEFAULT_MODEL).input).toBe(3);
  });

  it('throws naming an unknown model', () => {
    expect(() => costOf('gpt-4o', { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 })).toThrow(InvalidInput);
    expect(() => priceOf('gpt-4o')).toThrow(/gpt-4o/);
    // a prefix must end at a dash: "claude-sonnet-45" is not a sonnet-4 id
    expect(() => priceOf('claude-sonnet-45')).toThrow(/claude-sonnet-45/);
  });
});

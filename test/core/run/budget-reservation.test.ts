import { describe, expect, it } from 'vitest';
import { fits, leftOf, tighter, worstCaseOf } from '../../../core/run/budget-reservation';
import { ZERO_USAGE } from '../../../core/run/usage';

describe('budgets by reservation', () => {
  it('prices the worst case: every prompt token at the dearest input rate, plus max_tokens of output', () => {
    // sonnet: input $3/M, cache write $3.75/M, output $15/M; 3000 characters → 1000 tokens.
    const worst = worstCaseOf('claude-sonnet-4-6', 3000, 500);
    expect(worst.tokens).toBe(1500);
    expect(worst.usd).toBeCloseTo((1000 * 3.75 + 500 * 15) / 1e6, 12);
  });

  it('leaves what a budget has not spent, in the dimensions it limits', () => {
    const spent = { costUsd: 0.25, tokens: { ...ZERO_USAGE, input: 100, output: 50 } };
    expect(leftOf({ usd: 1 }, spent)).toEqual({ usd: 0.75 });
    expect(leftOf({ tokens: 1000 }, spent)).toEqual({ tokens: 850 });
    expect(leftOf(undefined, spent)).toBeUndefined();
  });

  it('takes the tighter allowance per dimension and fits a reserve only within every one', () => {
    const both = tighter({ usd: 0.5 }, { usd: 0.2, tokens: 900 });
    expect(both).toEqual({ usd: 0.2, tokens: 900 });
    expect(fits({ usd: 0.2, tokens: 900 }, both)).toBe(true);
    expect(fits({ usd: 0.21, tokens: 10 }, both)).toBe(false);
    expect(fits({ usd: 0.01, tokens: 901 }, both)).toBe(false);
    expect(fits({ usd: 99, tokens: 99 }, undefined)).toBe(true);
  });
});

describe('a grant of spent + worst', () => {
  it('holds the worst case whatever the rounding of the subtraction', () => {
    // 0.1 + 0.2 - 0.1 is 0.20000000000000004 in floating point; 0.3 + 0.6 - 0.3 is 0.6000000000000001 … and the other way round.
    for (const [spent, worst] of [[0.1, 0.2], [0.007914, 0.021705], [0.3, 0.6], [0.0123456789, 0.0987654321]]) {
      const granted = spent + worst;
      expect(fits({ usd: worst, tokens: 1 }, { usd: granted - spent })).toBe(true);
    }
  });
});

import type { TokenUsage } from './run-types';

/** No tokens at all. */
export const ZERO_USAGE: TokenUsage = Object.freeze({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

/** `a + sign × b`, field by field. */
function combine(a: TokenUsage, b: TokenUsage, sign: 1 | -1): TokenUsage {
  return {
    input: a.input + sign * b.input,
    output: a.output + sign * b.output,
    cacheRead: a.cacheRead + sign * b.cacheRead,
    cacheWrite: a.cacheWrite + sign * b.cacheWrite,
  };
}

/** The sum of two token counts. */
export const addUsage = (a: TokenUsage, b: TokenUsage): TokenUsage => combine(a, b, 1);

/** `a - b`: the tokens counted between two readings. */
export const subtractUsage = (a: TokenUsage, b: TokenUsage): TokenUsage => combine(a, b, -1);

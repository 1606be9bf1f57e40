/**
 * What runs spend, summed: token counts, and dollars without float noise (docs/interfaces.md#what-a-run-spent).
 * Pure: workflows sum with it too.
 */
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

/**
 * Every prompt token the model read: those it read fresh (`input`, as the Anthropic API counts
 * them) and those read from or written to the prompt cache alike. What dex's text calls "in", and
 * every `tokensIn` field.
 */
export const tokensIn = (t: TokenUsage): number => t.input + t.cacheRead + t.cacheWrite;

/**
 * The units a dollar is counted in: a cost is kept to 1e-8 USD. Every price in core/run/pricing.ts
 * is a whole number of cents per million tokens, so every token costs a whole number of units:
 * rounding to them takes away float noise (0.009899999999999999 becomes 0.0099), never a real
 * fraction of a cost.
 */
const UNITS_PER_USD = 100_000_000;

/** `usd` without float noise: a whole number of units, divided back into dollars. */
export const roundUsd = (usd: number): number => Math.round(usd * UNITS_PER_USD) / UNITS_PER_USD;

/** The sum of costs, as `--json` shows it: no float noise however many are added. */
export const addUsd = (...costs: number[]): number => roundUsd(costs.reduce((sum, c) => sum + c, 0));

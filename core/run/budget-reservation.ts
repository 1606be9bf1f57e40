/**
 * Budgets by reservation (docs/roadmaps.md#budgets-and-runaway-protection): before a model
 * call, its worst case — the whole prompt at the dearest input price plus `max_tokens` of
 * output — must fit in what is left of every budget it counts against. Pure: the workflow
 * sandbox and the model activity share it.
 */
import { priceOf } from './pricing';
import type { Budget, TokenUsage } from './run-types';
import { formatUsd } from '../text/spending';

/** What a call may spend at most, or what is left to spend. */
export interface Reserve {
  usd: number;
  tokens: number;
}

/** What may still be spent; a dimension without a limit is absent. */
export type Allowance = Partial<Reserve>;

/**
 * Characters per token of the worst-case estimate. Claude's tokenizer gives about 3.5–4
 * characters per token on English and code, and fewer on JSON-dense tool output; 3 errs high,
 * which is the side a reservation must err on.
 */
const CHARS_PER_TOKEN = 3;

/** The most a call on `model` with a prompt of `promptChars` characters and `maxTokens` of output can cost. */
export function worstCaseOf(model: string, promptChars: number, maxTokens: number): Reserve {
  const price = priceOf(model);
  const input = Math.ceil(promptChars / CHARS_PER_TOKEN);
  // Every input token at the dearest input rate: a cache write costs more than a plain read.
  const usd = (input * Math.max(price.input, price.cacheWrite) + maxTokens * price.output) / 1_000_000;
  return { usd, tokens: input + maxTokens };
}

/** All tokens of a usage, as budgets count them. */
export function totalTokens(t: TokenUsage): number {
  return t.input + t.output + t.cacheRead + t.cacheWrite;
}

/** What is left of `budget` after `spent`, in each dimension it limits; undefined when it limits none. */
export function leftOf(budget: Budget | undefined, spent: { costUsd: number; tokens: TokenUsage }): Allowance | undefined {
  if (!budget || (budget.usd === undefined && budget.tokens === undefined)) return undefined;
  return {
    ...(budget.usd !== undefined ? { usd: budget.usd - spent.costUsd } : {}),
    ...(budget.tokens !== undefined ? { tokens: budget.tokens - totalTokens(spent.tokens) } : {}),
  };
}

/** The tighter of two allowances, dimension by dimension. */
export function tighter(a: Allowance | undefined, b: Allowance | undefined): Allowance | undefined {
  if (!a) return b;
  if (!b) return a;
  const min = (x?: number, y?: number) => (x === undefined ? y : y === undefined ? x : Math.min(x, y));
  const usd = min(a.usd, b.usd);
  const tokens = min(a.tokens, b.tokens);
  return { ...(usd !== undefined ? { usd } : {}), ...(tokens !== undefined ? { tokens } : {}) };
}

/**
 * How far below a reserve an allowance may be and still hold it: a grant of `spent + worst` less
 * `spent` is `worst` give or take a rounding error, and refusing it would ask for the same grant
 * again and again.
 */
const USD_EPSILON = 1e-9;

/** True when `worst` fits in `allowance` (no allowance: anything fits). */
export function fits(worst: Reserve, allowance: Allowance | undefined): boolean {
  if (!allowance) return true;
  return (allowance.usd === undefined || worst.usd <= allowance.usd + USD_EPSILON) && (allowance.tokens === undefined || worst.tokens <= allowance.tokens);
}

/** A reserve as a person reads it. */
export function describeReserve(r: Reserve): string {
  return `${formatUsd(r.usd)} (${r.tokens} tokens)`;
}

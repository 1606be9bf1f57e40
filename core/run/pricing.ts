/**
 * Model prices and the cost of a call. Pure: the workflow sandbox imports it too.
 */
import { InvalidInput } from './invalid-input';
import type { TokenUsage } from './run-types';
import { roundUsd } from './usage';

/** USD per million tokens of one model. */
interface ModelPrice {
  input: number;
  output: number;
  /** Writing the prompt cache with the 5-minute lifetime. */
  cacheWrite: number;
  cacheRead: number;
}

/** The model dex uses when the configuration names none. */
export const DEFAULT_MODEL = 'claude-sonnet-4-6';

/** Prices by model id prefix; a dated id such as `claude-sonnet-4-5-20250929` takes its longest prefix. */
const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  // Opus 4.5 and later cost a third of Opus 4/4.1; without their own rows they would fall back
  // to the `claude-opus-4` prefix and be charged three times their price.
  'claude-opus-4-8': { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  'claude-opus-4-7': { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  'claude-opus-4-6': { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  'claude-opus-4-5': { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  'claude-opus-4-1': { input: 15, output: 75, cacheWrite: 18.75, cacheRead: 1.5 },
  'claude-opus-4': { input: 15, output: 75, cacheWrite: 18.75, cacheRead: 1.5 },
  'claude-sonnet-4-6': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  'claude-sonnet-4-5': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  'claude-sonnet-4': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheWrite: 1, cacheRead: 0.08 },
};

/** The price of `model`, matched by the longest known prefix that ends at a `-` or the id's end; InvalidInput when none does. */
export function priceOf(model: string): ModelPrice {
  let best: string | undefined;
  for (const prefix of Object.keys(MODEL_PRICES)) {
    const fits = model === prefix || model.startsWith(`${prefix}-`);
    if (fits && (best === undefined || prefix.length > best.length)) best = prefix;
  }
  if (best === undefined) throw new InvalidInput(`No price known for model "${model}"; known models: ${Object.keys(MODEL_PRICES).join(', ')}`);
  return MODEL_PRICES[best];
}

/** The USD cost of `usage` on `model`; throws InvalidInput for an unknown model. */
export function costOf(model: string, usage: TokenUsage): number {
  const price = priceOf(model);
  const microDollars =
    usage.input * price.input +
    usage.output * price.output +
    usage.cacheWrite * price.cacheWrite +
    usage.cacheRead * price.cacheRead;
  return roundUsd(microDollars / 1_000_000);
}

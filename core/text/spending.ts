/**
 * What a run spent, as every view writes it for a person: the progress lines, the end of a run,
 * `dex status`, `dex list`, `dex log` and the Web UI's details (docs/interfaces.md#what-a-run-spent).
 * "in" is every prompt token the model read, cache reads and writes included; the cache's part
 * is shown apart where there is room. Pure: the workflows' details use it too.
 */
import type { TokenUsage } from '../run/run-types';
import { tokensIn } from '../run/usage';

/**
 * Dollars as a person reads them: cents from a dollar up (`$1.23`), four places below it
 * (`$0.0099`, `$0.5000`: a model call costs fractions of a cent), `<$0.0001` for less than that
 * but more than nothing, `$0.00` for nothing.
 */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0.00';
  if (usd > 0 && usd < 0.00005) return '<$0.0001';
  // From 0.99995 up, four places would round to `$1.0000`.
  return usd >= 0.99995 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

/** Tokens in one short run of text, for lines with little room: `7774 in / 290 out`. */
export const tokensText = (t: TokenUsage): string => `${tokensIn(t)} in / ${t.output} out`;

/** Tokens with the prompt cache's part of "in" shown: `7774 in (4608 cache read, 1536 cache write) / 290 out`. */
export function tokensDetail(t: TokenUsage): string {
  const cache = [t.cacheRead ? `${t.cacheRead} cache read` : '', t.cacheWrite ? `${t.cacheWrite} cache write` : ''].filter(Boolean);
  return `${tokensIn(t)} in${cache.length ? ` (${cache.join(', ')})` : ''} / ${t.output} out`;
}

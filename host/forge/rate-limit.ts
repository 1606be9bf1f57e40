// A forge's rate limits as GitHub states them (docs/landing-through-prs.md#rate-limits): a primary
// limit spent (`x-ratelimit-remaining: 0`, until `x-ratelimit-reset`, epoch seconds) or a secondary
// one (a 403 or 429 with `retry-after`, seconds). The activity's next attempt waits that long, set
// as the failure's next retry delay, rather than knocking again on the policy's short backoff,
// which GitHub answers by keeping the limit on longer.

/** The headers of a refused request. */
type Headers = Record<string, string | undefined>;

/** How long a wait dex honours at most: past it, the policy's own backoff takes over again. */
const MAX_WAIT_MS = 60 * 60_000;

/** True when the answer says a rate limit refused it. */
export function rateLimited(headers: Headers, message: string): boolean {
  return headers['x-ratelimit-remaining'] === '0' || headers['retry-after'] !== undefined || /rate limit/i.test(message);
}

/** How long to wait before asking again, from `retry-after` or `x-ratelimit-reset` (ms, at least 1 s); undefined when the answer does not say. */
export function rateLimitWaitMs(headers: Headers, nowMs = Date.now()): number | undefined {
  const after = Number(headers['retry-after']);
  if (headers['retry-after'] !== undefined && Number.isFinite(after) && after >= 0) return Math.min(Math.max(after * 1000, 1000), MAX_WAIT_MS);
  const reset = Number(headers['x-ratelimit-reset']);
  if (headers['x-ratelimit-remaining'] === '0' && Number.isFinite(reset) && reset > 0) return Math.min(Math.max(reset * 1000 - nowMs + 1000, 1000), MAX_WAIT_MS);
  return undefined;
}

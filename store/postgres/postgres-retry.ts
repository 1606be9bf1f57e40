/**
 * When the PostgreSQL store tries a statement or a transaction again (docs/production.md#the-shared-store):
 * once, after a short pause, when the connection it ran on was lost (the database restarted, a
 * pooled connection had gone stale) or the database rolled it back itself (a deadlock). Anything
 * else — a constraint, a syntax error, a second failure — is the caller's to see.
 *
 * Trying again is safe for every operation of the store because every write is keyed: a write
 * whose connection died after it committed is ignored the second time, exactly as when Temporal
 * retries the activity that made it. A longer outage fails the activity, and Temporal retries it
 * with its own backoff.
 */

/** SQLSTATEs after which nothing was kept: the connection was lost, or the database rolled the work back. */
const LOST_OR_ROLLED_BACK = new Set([
  '57P01', // admin_shutdown: the server is stopping or restarting (pg_ctl restart -m fast)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: still starting up
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);

/** Socket errors of a connection that went away or never came. */
const SOCKET_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTCONN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** node-postgres reports a closed socket by message alone, without a code. */
const LOST_MESSAGES = /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect/i;

/** How long to wait before the one retry: enough for a restarted server to take connections again. */
const RETRY_PAUSE_MS = 250;

/** Whether `err` says the work never took effect, or may have without its answer arriving: worth one more try. */
export function isRetryable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err instanceof AggregateError) return err.errors.some(isRetryable); // a host name with several addresses
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (code.startsWith('08') || LOST_OR_ROLLED_BACK.has(code) || SOCKET_CODES.has(code))) return true;
  return LOST_MESSAGES.test(err.message);
}

/** Runs `attempt`, and once more after {@link RETRY_PAUSE_MS} when its failure {@link isRetryable}. */
export async function retriedOnce<T>(attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (err) {
    if (!isRetryable(err)) throw err;
    await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
    return attempt();
  }
}

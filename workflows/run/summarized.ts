import type { ActivityFunctionWithOptions } from '@temporalio/workflow';

/** An activity of one argument whose calls each carry a summary that reads as a step (`turn 3 · edit_file src/math.js`). */
type Summarized<F> = F extends (input: infer I) => Promise<infer R> ? (input: I, summary: string) => Promise<R> : never;

/**
 * The activity proxies of `proxies`, each called with its input and a one-line summary, which
 * the Web UI's timeline and `temporal workflow show` display for that activity
 * (docs/architecture.md).
 */
export function summarized<P extends Record<string, unknown>>(proxies: P): { [K in keyof P]: Summarized<P[K]> } {
  return Object.fromEntries(
    Object.entries(proxies).map(([name, fn]) => [
      name,
      (input: unknown, summary: string) => (fn as ActivityFunctionWithOptions<(input: unknown) => Promise<unknown>>).executeWithOptions({ summary }, [input]),
    ]),
  ) as { [K in keyof P]: Summarized<P[K]> };
}

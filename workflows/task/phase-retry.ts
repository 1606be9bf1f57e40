import { CHANGING_PHASES } from '../../core/task/phases';

/**
 * Where the work goes after `failed` fails: the retry map's phase when the task has it, else
 * the nearest earlier phase that changes files; undefined when there is none (the task fails).
 */
export function retryTarget(failed: string, phases: readonly string[], retryMap: Record<string, string>): string | undefined {
  const mapped = retryMap[failed];
  if (mapped === undefined) return undefined;
  if (phases.includes(mapped)) return mapped;
  const at = phases.indexOf(failed);
  return phases.slice(0, at).reverse().find((p) => CHANGING_PHASES.has(p));
}

/**
 * The durable wait before retry `n` (1-based): 1 s, 2 s, 4 s, … with ±10% jitter. Math.random
 * is the workflow sandbox's seeded one, so a replay waits the same.
 */
export function retryDelayMs(n: number): number {
  const base = 1000 * 2 ** (n - 1);
  return Math.round(base * (0.9 + Math.random() * 0.2));
}

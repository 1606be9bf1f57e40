import { WEIGHTS, type Weight } from '../../core/task/weight';

/**
 * What every section parser of dex.config.yaml shares (client/config/config-file.ts and the
 * *-config.ts beside it): how a section reports a bad value, and the one shape check they all need.
 */

/** How a config section reports a bad value: the key and what is wrong with it (InvalidInput, exit 2). */
export type Fail = (key: string, problem: string) => never;

/** A duration as the config writes one (`30m`, `24h`): a gate's deadline, the attempts' time limit. */
export const DURATION = /^\d+(\.\d+)?\s*(ms|s|m|h|d)$/;

/** True for a YAML map (not a list, not null). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Fails on the first key of `map` not in `known`, naming it as `prefix` + key and listing the known ones. */
export function knownKeys(map: Record<string, unknown>, known: readonly string[], prefix: string, fail: Fail): void {
  for (const key of Object.keys(map)) if (!known.includes(key)) fail(prefix + key, `is not a known key (known: ${known.join(', ')})`);
}

/**
 * A map of `default` and phase names to values, whose weight keys (`large: { review: … }`) hold
 * their own phase map (`models`, `agent`): each value read by `value(v, key)`; a weight that is
 * not a map fails as `<section>.<weight> must be a map of phase to <noun>`.
 */
export function byPhaseAndWeight<T>(
  raw: Record<string, unknown>,
  section: string,
  noun: string,
  value: (v: unknown, key: string) => T,
  fail: Fail,
): { byPhase: Record<string, T>; byWeight: Partial<Record<Weight, Record<string, T>>> } {
  const byPhase: Record<string, T> = {};
  const byWeight: Partial<Record<Weight, Record<string, T>>> = {};
  for (const [key, v] of Object.entries(raw)) {
    if (!(WEIGHTS as readonly string[]).includes(key)) {
      byPhase[key] = value(v, `${section}.${key}`);
      continue;
    }
    if (!isRecord(v)) fail(`${section}.${key}`, `must be a map of phase to ${noun}`);
    byWeight[key as Weight] = Object.fromEntries(Object.entries(v).map(([phase, x]) => [phase, value(x, `${section}.${key}.${phase}`)]));
  }
  return { byPhase, byWeight };
}

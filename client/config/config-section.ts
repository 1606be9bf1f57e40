/**
 * What every section parser of dex.config.yaml shares (client/config/config-file.ts and the
 * *-config.ts beside it): how a section reports a bad value, and the one shape check they all need.
 */

/** How a config section reports a bad value: the key and what is wrong with it (InvalidInput, exit 2). */
export type Fail = (key: string, problem: string) => never;

/** True for a YAML map (not a list, not null). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Fails on the first key of `map` not in `known`, naming it as `prefix` + key and listing the known ones. */
export function knownKeys(map: Record<string, unknown>, known: readonly string[], prefix: string, fail: Fail): void {
  for (const key of Object.keys(map)) if (!known.includes(key)) fail(prefix + key, `is not a known key (known: ${known.join(', ')})`);
}

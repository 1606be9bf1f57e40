/**
 * `memory:` in dex.config.yaml (docs/roadmaps.md#memory): how many tokens of run memory and of
 * project memory a task's first prompt may hold; `memory: false` shows none and offers a
 * `remember` that keeps nothing.
 */
import { DEFAULT_MEMORY, type MemoryRef } from '../core/run-memory';

const KEYS = ['runTokens', 'projectTokens'];

/** The memory limits from `raw` (the `memory` key's value), failing through `fail` with the key. */
export function parseMemoryConfig(raw: unknown, fail: (key: string, problem: string) => never): MemoryRef | false | undefined {
  if (raw === undefined || raw === false) return raw;
  if (raw === true) return { ...DEFAULT_MEMORY };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail('memory', 'must be false or a map with runTokens and/or projectTokens');
  const map = raw as Record<string, unknown>;
  for (const key of Object.keys(map)) if (!KEYS.includes(key)) fail(`memory.${key}`, `is not a known key (known: ${KEYS.join(', ')})`);
  const limit = (key: 'runTokens' | 'projectTokens'): number => {
    const v = map[key];
    if (v === undefined) return DEFAULT_MEMORY[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) fail(`memory.${key}`, 'must be a non-negative whole number');
    return v;
  };
  return { runTokens: limit('runTokens'), projectTokens: limit('projectTokens') };
}

/** The memory a task gets from its config: the defaults when it says nothing, none with `memory: false`. */
export function memoryOf(config: { memory?: MemoryRef | false }): MemoryRef | undefined {
  return config.memory === false ? undefined : (config.memory ?? { ...DEFAULT_MEMORY });
}

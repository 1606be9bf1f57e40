/**
 * `memory:` in dex.config.yaml (docs/roadmaps.md#memory): how many tokens of run memory and of
 * project memory a task's first prompt may hold; `memory: false` shows none and offers a
 * `remember` that keeps nothing.
 */
import { DEFAULT_MEMORY, type MemoryRef } from '../../core/run/run-memory';
import { isRecord, knownKeys, type Fail } from './config-section';

const KEYS = ['runTokens', 'projectTokens'];

/** The memory limits from `raw` (the `memory` key's value), failing through `fail` with the key. */
export function parseMemoryConfig(raw: unknown, fail: Fail): MemoryRef | false | undefined {
  if (raw === undefined || raw === false) return raw;
  if (raw === true) return { ...DEFAULT_MEMORY };
  if (!isRecord(raw)) fail('memory', 'must be false or a map with runTokens and/or projectTokens');
  const map = raw;
  knownKeys(map, KEYS, 'memory.', fail);
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

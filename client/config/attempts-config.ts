/**
 * `attempts:` in dex.config.yaml (docs/attempts.md): a task runs as several attempts at once and
 * the best by evidence lands. A number (`attempts: 3`) or a map with `count` and how the attempts
 * differ, stop, spend and are chosen; 1 (or no key) is off.
 */
import { msToNumber, type Duration } from '@temporalio/common/lib/time';
import { DEFAULT_WEIGHTS } from '../../core/task/attempt-score';
import { isAttemptCount, MAX_ATTEMPTS, type AttemptsConfig, type AttemptVariant, type AttemptWeights } from '../../core/task/attempts';
import { DURATION, isRecord, knownKeys, type Fail } from './config-section';

const KEYS = ['count', 'variants', 'stopWhen', 'attemptBudgetUsd', 'timeLimit', 'choose', 'weights'];
const VARIANT_KEYS = ['model', 'temperature', 'hint'];
const WEIGHT_KEYS = Object.keys(DEFAULT_WEIGHTS) as (keyof AttemptWeights)[];
const COUNT = `must be a whole number from 2 to ${MAX_ATTEMPTS} (1 turns attempts off)`;

/** `value` at `key` when it is one of `allowed`, else a failure listing them. */
function oneOf<T extends string>(value: unknown, allowed: readonly T[], key: string, fail: Fail): T {
  if (!allowed.includes(value as T)) fail(key, `must be ${allowed.map((a) => `"${a}"`).join(' or ')}`);
  return value as T;
}

/** `value` at `key` when it is a number of at least 0 (`positive`: above 0), else a failure. */
function number(value: unknown, key: string, fail: Fail, positive = false): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (positive && value === 0)) fail(key, `must be a ${positive ? 'positive' : 'non-negative'} number`);
  return value;
}

/** One entry of `attempts.variants`. */
function variant(raw: unknown, key: string, fail: Fail): AttemptVariant {
  if (!isRecord(raw)) fail(key, 'must be a map with model, temperature and/or hint');
  knownKeys(raw, VARIANT_KEYS, `${key}.`, fail);
  if (raw.model !== undefined && !(typeof raw.model === 'string' && raw.model.trim())) fail(`${key}.model`, 'must be a model name');
  if (raw.temperature !== undefined && (typeof raw.temperature !== 'number' || raw.temperature < 0 || raw.temperature > 1)) fail(`${key}.temperature`, 'must be a number from 0 to 1');
  if (raw.hint !== undefined && !(typeof raw.hint === 'string' && raw.hint.trim())) fail(`${key}.hint`, 'must be a line of text');
  return raw as AttemptVariant;
}

/** The keys of the `attempts` map but `count`, checked. */
function details(raw: Record<string, unknown>, fail: Fail): Omit<AttemptsConfig, 'count'> {
  const out: Omit<AttemptsConfig, 'count'> = {};
  if (raw.variants !== undefined) {
    if (!Array.isArray(raw.variants) || !raw.variants.length) fail('attempts.variants', 'must be a list of maps with model, temperature and/or hint');
    out.variants = raw.variants.map((v, i) => variant(v, `attempts.variants.${i}`, fail));
  }
  if (raw.stopWhen !== undefined) out.stopWhen = oneOf(raw.stopWhen, ['first-pass', 'all'] as const, 'attempts.stopWhen', fail);
  if (raw.attemptBudgetUsd !== undefined) out.attemptBudgetUsd = number(raw.attemptBudgetUsd, 'attempts.attemptBudgetUsd', fail, true);
  if (raw.timeLimit !== undefined) {
    // Written as a gate's deadline is (`30m`, `2h`), and read into ms by the same function Temporal reads that deadline with.
    if (typeof raw.timeLimit !== 'string' || !DURATION.test(raw.timeLimit)) fail('attempts.timeLimit', 'must be a duration such as "30m" or "2h"');
    out.timeLimitMs = msToNumber(raw.timeLimit as Duration);
  }
  if (raw.choose !== undefined) out.choose = oneOf(raw.choose, ['evidence', 'person'] as const, 'attempts.choose', fail);
  if (raw.weights !== undefined) {
    if (!isRecord(raw.weights)) fail('attempts.weights', `must be a map of ${WEIGHT_KEYS.join(', ')} to numbers`);
    knownKeys(raw.weights, WEIGHT_KEYS, 'attempts.weights.', fail);
    out.weights = Object.fromEntries(Object.entries(raw.weights).map(([k, v]) => [k, number(v, `attempts.weights.${k}`, fail)]));
  }
  return out;
}

/** The attempts setting from `raw` (the `attempts` key's value), failing through `fail` with the key; undefined when off. */
export function parseAttemptsConfig(raw: unknown, fail: Fail): AttemptsConfig | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw === 'number') {
    if (!isAttemptCount(raw)) fail('attempts', COUNT);
    return raw > 1 ? { count: raw } : undefined;
  }
  if (!isRecord(raw)) fail('attempts', `must be a number of attempts or a map with count (${KEYS.slice(1).join(', ')})`);
  knownKeys(raw, KEYS, 'attempts.', fail);
  if (!isAttemptCount(raw.count)) fail('attempts.count', COUNT);
  const rest = details(raw, fail);
  return raw.count > 1 ? { count: raw.count, ...rest } : undefined;
}


/**
 * The `models` and `thinking` keys of dex.config.yaml (docs/roadmaps.md#models-and-thinking):
 * a model per phase, per weight × phase, and extended thinking for the decision phases.
 */
import type { Weight } from '../../core/task/weight';
import type { GateConfig } from '../../core/run/run-types';
import type { ThinkingConfig } from '../../core/task/task-types';
import { checkPriced } from '../requests/llm-spec';
import { byPhaseAndWeight, isRecord, knownKeys, type Fail } from './config-section';

/** The phases that decide rather than build: where thinking helps most. */
export const DEFAULT_THINKING_PHASES = ['spec', 'design', 'review', 'validate'];
/** Tokens a turn may think for. The API's minimum is 1024. @default 4096 */
export const DEFAULT_THINKING_BUDGET = 4096;

function modelId(v: unknown, key: string, fail: Fail): string {
  if (typeof v !== 'string' || !v) fail(key, 'must be a model id');
  checkPriced(v, `dex.config.yaml: "${key}"`);
  return v;
}

/**
 * `models:` — `default`, phase names, and weights (`large: { review: … }`) whose phases get
 * their own model. Every model must have a known price.
 */
export function parseModels(raw: unknown, fail: Fail): { models: Record<string, string>; modelsByWeight: Partial<Record<Weight, Record<string, string>>> } {
  if (!isRecord(raw)) fail('models', 'must be a map of phase (or weight) to model id');
  const { byPhase, byWeight } = byPhaseAndWeight(raw, 'models', 'model id', (v, key) => modelId(v, key, fail), fail);
  return { models: byPhase, modelsByWeight: byWeight };
}

/** `thinking:` — `true` (the decision phases, the default budget) or `{ phases, budgetTokens }`. */
export function parseThinking(raw: unknown, fail: Fail): ThinkingConfig | undefined {
  if (raw === false) return undefined;
  if (raw === true) return { phases: [...DEFAULT_THINKING_PHASES], budgetTokens: DEFAULT_THINKING_BUDGET };
  if (!isRecord(raw)) fail('thinking', 'must be true, false or { phases, budgetTokens }');
  knownKeys(raw, ['phases', 'budgetTokens'], 'thinking.', fail);
  const phases = raw.phases ?? DEFAULT_THINKING_PHASES;
  if (!Array.isArray(phases) || !phases.every((p) => typeof p === 'string' && p)) fail('thinking.phases', 'must be a list of phase names');
  const budget = raw.budgetTokens ?? DEFAULT_THINKING_BUDGET;
  if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < 1024) fail('thinking.budgetTokens', 'must be a whole number of at least 1024 (the API minimum)');
  return { phases: phases as string[], budgetTokens: budget };
}

/** The model part of a gate answered by a model (`by: model`, docs/roadmaps.md#ai-gates). */
export function modelGate(v: Record<string, unknown>, key: string, fail: Fail): GateConfig {
  if (v.by !== 'model') fail(`${key}.by`, 'must be "person" or "model"');
  if (v.instructions !== undefined && (typeof v.instructions !== 'string' || !v.instructions.trim())) fail(`${key}.instructions`, 'must be text');
  if (v.onModelError !== undefined && !['ask', 'fail', 'pass'].includes(v.onModelError as string)) fail(`${key}.onModelError`, 'must be "ask", "fail" or "pass"');
  return {
    by: 'model',
    ...(v.model !== undefined ? { model: modelId(v.model, `${key}.model`, fail) } : {}),
    ...(v.instructions !== undefined ? { instructions: v.instructions as string } : {}),
    ...(v.onModelError !== undefined ? { onModelError: v.onModelError as GateConfig['onModelError'] } : {}),
  };
}

/** The planner's model when `planner: true`: a cheap one, as the choice is small. */
const DEFAULT_PLANNER_MODEL = 'claude-haiku-4-5';

/** `planner:` — `true` or `{ model }` (docs/roadmaps.md#the-planner-and-escalate); `false` or absent: none. */
export function parsePlanner(raw: unknown, fail: Fail): { model: string } | undefined {
  if (raw === false) return undefined;
  if (raw === true) return { model: DEFAULT_PLANNER_MODEL };
  if (!isRecord(raw)) fail('planner', 'must be true, false or { model }');
  knownKeys(raw, ['model'], 'planner.', fail);
  return { model: raw.model === undefined ? DEFAULT_PLANNER_MODEL : modelId(raw.model, 'planner.model', fail) };
}

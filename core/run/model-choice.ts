/**
 * Which model a phase runs on and whether it thinks first (docs/roadmaps.md#models-and-thinking).
 * Pure: the client and the roadmap workflow both choose with it.
 */
import type { Weight } from '../task/weight';
import type { ThinkingConfig } from '../task/task-types';

/** A task's models by phase: its weight's models (`models.large.review`) over the per-phase ones (`models.review`). */
export function modelsForWeight(models: Record<string, string>, byWeight: Partial<Record<Weight, Record<string, string>>> | undefined, weight: Weight | undefined): Record<string, string> {
  return weight && byWeight?.[weight] ? { ...models, ...byWeight[weight] } : models;
}

/** The thinking budget of a turn in `phase`; undefined when the phase does not think. */
export function thinkingBudget(thinking: ThinkingConfig | undefined, phase: string): number | undefined {
  return thinking?.phases.includes(phase) ? thinking.budgetTokens : undefined;
}

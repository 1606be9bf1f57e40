/**
 * How a layer run groups its targets into activities (docs/layers.md#where-a-target-runs). Pure:
 * the workflow sandbox imports it.
 */
import { GLOBAL_TOPIC } from './layer-run';

/** The most targets one activity runs. */
const MOST_TARGETS_PER_ACTIVITY = 8;

/**
 * Targets per activity at `concurrency` targets at once: one per activity up to 15 at once, so a
 * small layer shows each target as a step of its own; then one more per 8 lanes, up to
 * {@link MOST_TARGETS_PER_ACTIVITY} at 64. A batch's targets run at once inside its activity, so
 * the run still has `concurrency` targets going, in `concurrency / size` activities.
 */
export function targetsPerActivity(concurrency: number): number {
  return Math.max(1, Math.min(MOST_TARGETS_PER_ACTIVITY, Math.floor(concurrency / 8)));
}

/** `items` in consecutive groups of `size`, in their order. */
export function inBatches<T>(items: readonly T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches;
}

/** The one-line summary of the activity that runs `targets` of layer `layer`. */
export function batchSummary(targets: readonly string[], layer: string): string {
  const named = (t: string) => (t === GLOBAL_TOPIC ? 'the global part' : t);
  if (targets.length === 1) return `${targets[0] === GLOBAL_TOPIC ? 'the global part' : `target ${targets[0]}`} of layer ${layer}`;
  const shown = targets.length <= 3 ? targets.map(named).join(', ') : `${named(targets[0])} … ${named(targets[targets.length - 1])}`;
  return `${targets.length} targets (${shown}) of layer ${layer}`;
}

import type { createLayerActivities } from '../../activities/layer/layer-activities';
import type { Summarized } from '../run/summarized';

type LayerFunctions = ReturnType<typeof createLayerActivities>;

/** The steps a target's nodes take (fetch, render, salience, model, store, write). */
type TargetStepName =
  | 'fetchLayerMessages'
  | 'fetchLayerInsights'
  | 'renderLayerPrompt'
  | 'reserveLayerSalience'
  | 'settleLayerSalience'
  | 'refundTargetSalience'
  | 'spendTargetSalience'
  | 'callLayerModel'
  | 'storeLayerInsight'
  | 'writeLayerText';

/**
 * What one target's run calls, each step with a one-line summary. A target in its own child
 * workflow calls them as activities; a target run as one activity calls the same functions in
 * that activity (docs/layers.md#where-a-target-runs). Typed from the layer activities alone, so
 * the activity that runs a target can use the target's code without an import cycle.
 */
export type TargetSteps = { [K in TargetStepName]: Summarized<LayerFunctions[K]> };

/**
 * The activities behind layer nodes, merged from one file per family: fetching a target's
 * context (layer-fetch.ts), its results (layer-results.ts), the model call (layer-model.ts), the
 * salience ledger (layer-salience.ts), prompt rendering (layer-prompt.ts) and the chain
 * (layer-chain.ts). Fetched data and prompts stay in the store; the workflow gets keys and counts.
 */
import type { ActivityDeps } from '../deps';
import { createLayerChainActivities } from './layer-chain';
import { createLayerFetchActivities } from './layer-fetch';
import { createLayerModelActivities } from '../model/prompt-call';
import { createLayerPromptActivities } from './layer-prompt';
import { createLayerResultActivities } from './layer-results';
import { createLayerSalienceActivities } from './layer-salience';

/** Builds the layer activities (the layer model call among them) over the host's dependencies. */
export const createLayerActivities = (deps: ActivityDeps) => ({
  ...createLayerModelActivities(deps),
  ...createLayerSalienceActivities(deps),
  ...createLayerPromptActivities(deps),
  ...createLayerChainActivities(deps),
  ...createLayerFetchActivities(deps),
  ...createLayerResultActivities(deps),
});

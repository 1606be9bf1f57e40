import { createModelActivities } from './call-model';
import { createCheckpointActivities } from './checkpoint';
import type { ActivityDeps } from './deps';
import { createFetchActivities } from './fetch-context';
import { createLayerActivities } from './layer-activities';
import { createRoadmapActivities } from './roadmap-activities';
import { createToolActivities } from './run-tool';
import { createSheetActivities } from './sheet';
import { createStoreActivities } from './store';
import { createVerifyActivities } from './verify';

export type { ActivityDeps } from './deps';

/** Every activity dex registers, built from the host's dependencies. */
export const createActivities = (deps: ActivityDeps) => ({
  ...createFetchActivities(deps),
  ...createModelActivities(deps),
  ...createToolActivities(deps),
  ...createVerifyActivities(deps),
  ...createCheckpointActivities(deps),
  ...createStoreActivities(deps),
  ...createRoadmapActivities(deps),
  ...createLayerActivities(deps),
  ...createSheetActivities(deps),
});

/** The activities as the workflows see them (import this type only). */
export type DexActivities = ReturnType<typeof createActivities>;

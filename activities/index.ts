import { createModelActivities } from './call-model';
import { createCheckpointActivities } from './checkpoint';
import type { ActivityDeps } from './deps';
import { createFetchActivities } from './fetch-context';
import { createLandingBranchActivities } from './landing-branch';
import { createLandingMergeActivities } from './landing-merge';
import { createLandingRemoteActivities } from './landing-remote';
import { createLayerActivities } from './layer-activities';
import { createMemoryActivities } from './memory';
import { createRoadmapActivities } from './roadmap-activities';
import { createToolActivities } from './run-tool';
import { createSheetActivities } from './sheet';
import { createStoreActivities } from './store';
import { createVerifyActivities } from './verify';
import { createJudgeGateActivities } from './judge-gate';
import { createClassifyActivities } from './classify-task';
import { createVerifyBaselineActivities } from './verify-baseline';
import { createSetupActivities } from './setup-worktree';

export type { ActivityDeps } from './deps';

/** Every activity dex registers, built from the host's dependencies. */
export const createActivities = (deps: ActivityDeps) => ({
  ...createFetchActivities(deps),
  ...createModelActivities(deps),
  ...createToolActivities(deps),
  ...createVerifyActivities(deps),
  ...createJudgeGateActivities(deps),
  ...createClassifyActivities(deps),
  ...createVerifyBaselineActivities(deps),
  ...createSetupActivities(deps),
  ...createCheckpointActivities(deps),
  ...createStoreActivities(deps),
  ...createRoadmapActivities(deps),
  ...createLandingMergeActivities(deps),
  ...createLandingRemoteActivities(deps),
  ...createLandingBranchActivities(deps),
  ...createLayerActivities(deps),
  ...createSheetActivities(deps),
  ...createMemoryActivities(deps),
});

/** The activities as the workflows see them (import this type only). */
export type DexActivities = ReturnType<typeof createActivities>;

import { createModelActivities } from './model/call-model';
import { createClaudeActivities } from './claude/claude-session';
import { createTaskWorktreeActivities } from './task/task-worktree';
import type { ActivityDeps } from './deps';
import { createFetchActivities } from './task/fetch-context';
import { createLandingBranchActivities } from './roadmap/landing-branch';
import { createForgeActivities } from './roadmap/landing-forge';
import { createLandingMergeActivities } from './roadmap/landing-merge';
import { createLandingRemoteActivities } from './roadmap/landing-remote';
import { createLayerActivities } from './layer/layer-activities';
import { createLayerTargetActivities } from './layer/layer-target';
import { createMemoryActivities } from './run/memory';
import { createRoadmapFileActivities } from './roadmap/roadmap-file';
import { createLandingActivities } from './roadmap/landing';
import { createToolActivities } from './tools/run-tool';
import { createTurnToolActivities } from './tools/run-turn-tools';
import { createSheetActivities } from './sheet/sheet';
import { createPhaseRecordActivities } from './task/phase-records';
import { createVerifyActivities } from './verify/verify';
import { createJudgeGateActivities } from './task/judge-gate';
import { createClassifyActivities } from './task/classify-task';
import { createVerifyBaselineActivities } from './verify/verify-baseline';
import { createSetupActivities } from './task/setup-worktree';
import { createChangeSizeActivities } from './task/change-size';
import { createTaskSlotActivities } from './run/task-slot';
import { createWorktreeStateActivities } from './task/worktree-state';
import { createIssueCommentActivities } from './roadmap/issue-comment';

export type { ActivityDeps } from './deps';

/** Every activity dex registers, built from the host's dependencies. */
export const createActivities = (deps: ActivityDeps) => {
  const layer = createLayerActivities(deps);
  return {
    ...createFetchActivities(deps),
    ...createModelActivities(deps),
    ...createClaudeActivities(deps),
    ...createToolActivities(deps),
    ...createTurnToolActivities(deps),
    ...createVerifyActivities(deps),
    ...createJudgeGateActivities(deps),
    ...createClassifyActivities(deps),
    ...createVerifyBaselineActivities(deps),
    ...createSetupActivities(deps),
    ...createTaskWorktreeActivities(deps),
    ...createChangeSizeActivities(deps),
    ...createPhaseRecordActivities(deps),
    ...createRoadmapFileActivities(deps),
    ...createLandingActivities(deps),
    ...createLandingActivities(deps),
    ...createLandingMergeActivities(deps),
    ...createLandingRemoteActivities(deps),
    ...createLandingBranchActivities(deps),
    ...createForgeActivities(deps),
    ...layer,
    ...createLayerTargetActivities(layer),
    ...createSheetActivities(deps),
    ...createMemoryActivities(deps),
    ...createTaskSlotActivities(deps),
    ...createWorktreeStateActivities(deps),
    ...createIssueCommentActivities(),
  };
};

/** The activities as the workflows see them (import this type only). */
export type DexActivities = ReturnType<typeof createActivities>;

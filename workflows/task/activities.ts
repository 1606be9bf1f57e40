import { proxyActivities } from '@temporalio/workflow';
import type { DexActivities } from '../../activities';
import { summarized } from '../run/summarized';
import type { TurnToolsInput } from '../../activities/tools/run-turn-tools';
import { claudePolicy, gatePolicy, gitPolicy, llmPolicy, localIoPolicy, toolPolicy, turnToolsPolicy, verifyPolicy } from '../run/policies';

/**
 * The activities of one task, routed to the task queue of the host that holds its worktree
 * and store: a task's files never leave the machine it started on.
 */
export function hostActivities(hostQueue: string) {
  const on = { taskQueue: hostQueue };
  const { callModel } = proxyActivities<DexActivities>({ ...llmPolicy, ...on });
  const { runClaudeSession } = proxyActivities<DexActivities>({ ...claudePolicy, ...on });
  const { judgeGate, classifyTask } = proxyActivities<DexActivities>({ ...gatePolicy, ...on });
  const { runTool } = proxyActivities<DexActivities>({ ...toolPolicy, ...on });
  // Setup runs installs as verify runs test suites: long local children, heartbeated, a cancel waits for them to stop.
  const { verify, verifyBaseline, setupWorktree } = proxyActivities<DexActivities>({ ...verifyPolicy, ...on });
  const { prepareWorktree, commitCheckpoint, rollbackWorktree, removeWorktree } = proxyActivities<DexActivities>({ ...gitPolicy, ...on });
  const { fetchContext, recordPhase, keepPhaseArtifact, findRewindPoint } = proxyActivities<DexActivities>({ ...localIoPolicy, ...on });
  return {
    ...summarized({
      callModel,
      runClaudeSession,
      judgeGate,
      classifyTask,
      runTool,
      verify,
      verifyBaseline,
      setupWorktree,
      prepareWorktree,
      commitCheckpoint,
      rollbackWorktree,
      removeWorktree,
      fetchContext,
      recordPhase,
      keepPhaseArtifact,
      findRewindPoint,
    }),
    /** The tool calls of one turn as one activity, its start-to-close scaled by their number (turnToolsPolicy). */
    runTurnTools: (input: TurnToolsInput, summary: string) => {
      const { runTurnTools } = proxyActivities<DexActivities>({ ...turnToolsPolicy(input.toolUseIds.length), ...on });
      return summarized({ runTurnTools }).runTurnTools(input, summary);
    },
  };
}

/** The activities of one task, as the workflow calls them. */
export type HostActivities = ReturnType<typeof hostActivities>;

/** The merge step of finalize, on the host that holds the worktree. */
export function finalizeActivities(hostQueue: string) {
  const { mergeTarget } = proxyActivities<DexActivities>({ ...gitPolicy, taskQueue: hostQueue });
  return summarized({ mergeTarget });
}

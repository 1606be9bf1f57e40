import { proxyActivities, type ActivityFunctionWithOptions, type ActivityOptions } from '@temporalio/workflow';
import type { DexActivities } from '../../activities';
import type { TurnToolsInput } from '../../activities/tools/run-turn-tools';
import { claudePolicy, gatePolicy, gitPolicy, llmPolicy, localIoPolicy, PLACED_SCHEDULE_TO_START, toolPolicy, turnToolsPolicy, verifyPolicy } from '../run/policies';
import type { Placement } from '../run/placement';

/**
 * Each activity a task runs on the host that holds its worktree, with its retry profile.
 * Setup runs installs as verify runs test suites: long local children, heartbeated, a cancel waits for them to stop.
 */
const POLICIES = {
  callModel: llmPolicy,
  runClaudeSession: claudePolicy,
  judgeGate: gatePolicy,
  classifyTask: gatePolicy,
  runTool: toolPolicy,
  verify: verifyPolicy,
  verifyBaseline: verifyPolicy,
  setupWorktree: verifyPolicy,
  prepareWorktree: gitPolicy,
  commitCheckpoint: gitPolicy,
  rollbackWorktree: gitPolicy,
  removeWorktree: gitPolicy,
  mergeTarget: gitPolicy,
  recordWorktreeState: gitPolicy,
  measureChange: gitPolicy,
  fetchContext: localIoPolicy,
  recordPhase: localIoPolicy,
  keepPhaseArtifact: localIoPolicy,
  findRewindPoint: localIoPolicy,
} satisfies Partial<Record<keyof DexActivities, ActivityOptions>>;

type Routed<F> = F extends (input: infer I) => Promise<infer R> ? (input: I, summary: string) => Promise<R> : never;
type HostActivityName = keyof typeof POLICIES | 'runTurnTools';

/**
 * The activities of one task, each call sent where `place` says (workflows/run/placement.ts): the
 * host that holds a local checkout, or the fleet worker that holds the task now. Each call carries
 * a summary the Web UI's timeline shows. `relocate` rewrites a call's input for the worker it runs
 * on (a call run again after a move names the new worker's worktree).
 */
export function hostActivities(place: Placement, relocate: <T>(input: T) => T = (input) => input) {
  const route = <K extends HostActivityName>(name: K, policy: (input: unknown) => ActivityOptions): Routed<DexActivities[K]> =>
    ((input: unknown, summary: string) =>
      place.run((taskQueue) => {
        const bound = place.bounded ? { scheduleToStartTimeout: PLACED_SCHEDULE_TO_START } : {};
        const activity = proxyActivities<DexActivities>({ ...policy(input), ...bound, taskQueue })[name] as ActivityFunctionWithOptions<(input: unknown) => Promise<unknown>>;
        return activity.executeWithOptions({ summary }, [relocate(input)]);
      })) as Routed<DexActivities[K]>;
  const routed = Object.fromEntries(Object.entries(POLICIES).map(([name, policy]) => [name, route(name as keyof typeof POLICIES, () => policy)])) as {
    [K in keyof typeof POLICIES]: Routed<DexActivities[K]>;
  };
  return {
    ...routed,
    /** The tool calls of one turn as one activity, its start-to-close scaled by their number (turnToolsPolicy). */
    runTurnTools: route('runTurnTools', (input) => turnToolsPolicy((input as TurnToolsInput).toolUseIds.length)),
  };
}

/** The activities of one task, as the workflow calls them. */
export type HostActivities = ReturnType<typeof hostActivities>;

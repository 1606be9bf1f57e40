import { proxyActivities } from '@temporalio/workflow';
import type { DexActivities } from '../../activities';
import { gitPolicy, landCommandPolicy, localIoPolicy } from '../run/policies';
import { summarized } from '../run/summarized';

/** The activities of a roadmap run, on the host that holds its repository; built once per run. */
export function roadmapActivities(hostQueue: string) {
  const on = { taskQueue: hostQueue };
  const { readRoadmap, recordTaskMemory } = proxyActivities<DexActivities>({ ...localIoPolicy, ...on });
  const { mergeTaskBranch } = proxyActivities<DexActivities>({ ...gitPolicy, ...on });
  return summarized({ readRoadmap, mergeTaskBranch, recordTaskMemory });
}

/** The activities of a roadmap run, as its workflow calls them. */
export type RoadmapActivities = ReturnType<typeof roadmapActivities>;

/** A landing on a remote's branch (docs/roadmaps.md#landing-on-a-remote), on the host that holds the repository. */
export function remoteActivities(hostQueue: string) {
  const { fetchRemoteHead, pushLanding, removeWorktreeState } = proxyActivities<DexActivities>({ ...gitPolicy, taskQueue: hostQueue });
  return summarized({ fetchRemoteHead, pushLanding, removeWorktreeState });
}

/** A task proposed on a branch of the remote, with the owner's landCommand (docs/roadmaps.md#landing-on-a-remote). */
export function branchActivities(hostQueue: string) {
  const on = { taskQueue: hostQueue };
  const { fetchRemoteHead, pushProposal, describeProposal } = proxyActivities<DexActivities>({ ...gitPolicy, ...on });
  const { runLandCommand } = proxyActivities<DexActivities>({ ...landCommandPolicy, ...on });
  return summarized({ fetchRemoteHead, pushProposal, describeProposal, runLandCommand });
}

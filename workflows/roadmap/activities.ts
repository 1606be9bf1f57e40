import { proxyActivities } from '@temporalio/workflow';
import type { DexActivities } from '../../activities';
import { gitPolicy, localIoPolicy } from '../run/policies';
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

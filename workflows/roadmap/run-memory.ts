import type { MemoryRef } from '../../core/run/run-memory';
import type { RoadmapInput } from '../../core/roadmap/roadmap-types';
import type { TaskResult } from '../../core/task/task-types';
import type { RoadmapActivities } from './activities';
import { chainKey } from '../run/chain';

/**
 * The key of this roadmap run's memory (docs/roadmaps.md#memory): its chain's key, so a
 * continued-as-new run keeps its memory and a later run of the same roadmap (same workflow id)
 * starts with none.
 */
const memoryKey = chainKey;

/** The memory reference a starting task gets: the roadmap's limits and this run's key; none when memory is off. */
export function taskMemoryRef(input: RoadmapInput): { memory?: MemoryRef } {
  const limits = input.taskDefaults.memory;
  return limits ? { memory: { ...limits, runKey: memoryKey() } } : {};
}

/**
 * Records what a landed task leaves for the tasks after it (files, summary, decisions, failures)
 * and its passing verify commands; the store keeps it, history only the activity's small result.
 * Runs started before memory (no `memory` in their input) record nothing, so they replay as before.
 */
export async function recordLanded(acts: RoadmapActivities, input: RoadmapInput, task: { id: string; title: string }, result: TaskResult, workflowId: string): Promise<void> {
  if (!input.taskDefaults.memory) return;
  await acts.recordTaskMemory({
    runKey: memoryKey(),
    taskId: task.id,
    title: task.title,
    workflowId,
    repoPath: input.repoPath,
    ...(result.baseSha ? { baseSha: result.baseSha } : {}),
    head: result.commit ?? result.branch,
    ...(result.summary ? { summary: result.summary } : {}),
    verify: input.taskDefaults.verify,
    verifyPassed: result.verifyPassed,
  }, `memory · ${task.id}`);
}

import { describe, expect, it } from 'vitest';
import { RoadmapChildren } from '../../../workflows/roadmap/children';
import type { RoadmapTask } from '../../../core/roadmap/roadmap';
import type { RoadmapInput } from '../../../core/roadmap/roadmap-types';
import type { TaskInput } from '../../../core/task/task-types';

const base = {
  repoPath: '/r', roadmapFile: 'ROADMAP.md', repoName: 'r', roadmapHash: 'abcd1234', baseBranch: 'main', maxParallel: 2, continueAsNewAfterTasks: 25,
  phasesByWeight: { trivial: ['implement'], small: ['implement'], medium: ['implement'], large: ['implement'] },
  taskDefaults: { repoPath: '/r', hostQueue: 'dex@h', llm: { kind: 'anthropic' }, models: { default: 'claude-sonnet-4-6' } },
} as unknown as RoadmapInput;
const line = (attempts?: number): RoadmapTask => ({ id: 'T1', title: 'one', description: '', depends: [], done: false, line: 1, ...(attempts !== undefined ? { attempts } : {}) });

/** The child task's input the roadmap builds for `task` (a private step of `start`, which needs a workflow to start the child). */
const inputFor = (input: RoadmapInput, task: RoadmapTask): TaskInput =>
  (new RoadmapChildren(input) as unknown as { inputFor: (t: RoadmapTask, b: undefined, s: { costUsd: number; tokens: number }) => TaskInput }).inputFor(task, undefined, { costUsd: 0, tokens: 0 });

describe("a roadmap task's attempts (docs/attempts.md#roadmaps)", () => {
  it('has none when neither its line nor the config asks, so inputs of runs before attempts stay the same', () => {
    expect('attempts' in inputFor(base, line())).toBe(false);
  });

  it("takes the line's count, over the config's attempts when there are some", () => {
    expect(inputFor(base, line(3)).attempts).toEqual({ count: 3 });
    const configured = { ...base, taskDefaults: { ...base.taskDefaults, attempts: { count: 2, choose: 'person' } } } as RoadmapInput;
    expect(inputFor(configured, line()).attempts).toEqual({ count: 2, choose: 'person' });
    expect(inputFor(configured, line(4)).attempts).toEqual({ count: 4, choose: 'person' });
  });

  it('runs the task once when its line says `(attempts: 1)`, whatever the config says', () => {
    const configured = { ...base, taskDefaults: { ...base.taskDefaults, attempts: { count: 3 } } } as RoadmapInput;
    expect('attempts' in inputFor(configured, line(1))).toBe(false);
    expect('attempts' in inputFor(base, line(1))).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { rewindPoint } from '../../../core/task/rewind';

const base = { fromWorkflowId: 'task-x-1', phases: ['spec', 'implement', 'review', 'test'], baseSha: 'b'.repeat(40) };

describe('where a rewound run starts', () => {
  it('starts at the last checkpoint before the phase, with the artifacts of the phases before it', () => {
    const point = rewindPoint({
      ...base,
      from: 'test',
      records: [
        { phase: 'spec', state: 'verified', commitSha: null },
        { phase: 'implement', state: 'failed', commitSha: null },
        { phase: 'implement', state: 'verified', commitSha: 'c1' },
        { phase: 'review', state: 'verified', commitSha: 'c1' },
        { phase: 'test', state: 'failed', commitSha: 'c1' },
      ],
    });
    expect(point).toEqual({
      sha: 'c1',
      completedPhases: ['spec', 'implement', 'review'],
      artifacts: { SPEC_CONTENT: 'task-x-1/artifact/spec', REVIEW_FINDINGS: 'task-x-1/artifact/review' },
    });
  });

  it('starts at the base for the first phase, and refuses a phase whose predecessors never passed', () => {
    expect(rewindPoint({ ...base, from: 'spec', records: [] })).toEqual({ sha: base.baseSha, completedPhases: [], artifacts: {} });
    expect(() => rewindPoint({ ...base, from: 'review', records: [{ phase: 'spec', state: 'verified', commitSha: null }] })).toThrow(
      'phase "implement" of task-x-1 never passed: retry from "implement" instead',
    );
    expect(() => rewindPoint({ ...base, from: 'deploy', records: [] })).toThrow('has no phase "deploy"');
  });
});

import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, RetryState } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { innermostMessage } from '../../../core/run/failure-message';

describe('innermostMessage', () => {
  it('reads the failure an activity raised, under its ActivityFailure', () => {
    const raised = ApplicationFailure.create({ type: 'WorktreeMissing', message: 'worktree /w does not exist', nonRetryable: true });
    const failure = new ActivityFailure('Activity task failed', 'verify', '7', RetryState.NON_RETRYABLE_FAILURE, 'worker', raised);
    expect(innermostMessage(failure)).toBe('worktree /w does not exist');
  });

  it('reads the deepest failure of a child workflow, however many levels down', () => {
    const activity = new ActivityFailure('Activity task failed', 'callModel', '3', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'worker', ApplicationFailure.create({ message: 'overloaded' }));
    const task = ApplicationFailure.create({ type: 'TaskFailed', message: 'Activity task failed', nonRetryable: true, cause: activity });
    const child = new ChildWorkflowFailure('default', { workflowId: 'task-1', runId: 'r' }, 'taskWorkflow', RetryState.NON_RETRYABLE_FAILURE, task);
    expect(innermostMessage(child)).toBe('overloaded');
  });

  it('reads a failure with no cause, a plain error and anything else', () => {
    expect(innermostMessage(ApplicationFailure.create({ message: 'alone' }))).toBe('alone');
    expect(innermostMessage(new Error('plain'))).toBe('plain');
    expect(innermostMessage('text')).toBe('text');
    expect(innermostMessage(42)).toBe('42');
  });
});

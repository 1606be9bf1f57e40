import { describe, expect, it } from 'vitest';
import { attemptOf } from '../../client/run-lookup';
import { InvalidInput } from '../../core/run/invalid-input';
import type { AttemptRow } from '../../core/task/attempts';

const rows: AttemptRow[] = ['A', 'B', 'C'].map((name) => ({ name, workflowId: `task-math-fix-1-${name}`, state: 'completed', costUsd: 0 }));

describe('an attempt of a best-of-N task by its letter (dex diff ID B)', () => {
  it('finds the row, in either case', () => {
    expect(attemptOf('task-math-fix-1', rows, 'B').workflowId).toBe('task-math-fix-1-B');
    expect(attemptOf('task-math-fix-1', rows, 'c').name).toBe('C');
  });

  it('refuses a letter the task has not in one line listing those it has, and a task with no attempts', () => {
    expect(() => attemptOf('task-math-fix-1', rows, 'D')).toThrow(new InvalidInput('task-math-fix-1 has no attempt "D": its attempts are A, B, C'));
    expect(() => attemptOf('task-math-fix-1', [], 'A')).toThrow(new InvalidInput('task-math-fix-1 has no attempts: it is not a best-of-N task (docs/attempts.md)'));
  });
});

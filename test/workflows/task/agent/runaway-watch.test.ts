import { describe, expect, it } from 'vitest';
import { RunawayWatch } from '../../../../workflows/task/agent/runaway-watch';

describe('runaway protection', () => {
  it('stops a phase after the same verify failure N times in a row, whatever the timings say', () => {
    const watch = new RunawayWatch({ sameFailure: 3, noChangeTurns: 8 }, true);
    expect(watch.afterVerifyFailure('not ok 1 - sum (2.1ms)')).toBeUndefined();
    expect(watch.afterVerifyFailure('not ok 1 - sum (3.7ms)')).toBeUndefined();
    expect(watch.afterVerifyFailure('not ok 1 - sum (1.0ms)')).toBe('the same verify failure 3 times in a row: not ok 1 - sum (1.0ms)');
  });

  it('says which failure repeated: the cause verify named, on one line', () => {
    const watch = new RunawayWatch({ sameFailure: 2, noChangeTurns: 8 }, true);
    const cause = 'ERROR collecting test_a.py\nModuleNotFoundError: No module named \'requestz\'';
    expect(watch.afterVerifyFailure('1 error in 0.08s', cause)).toBeUndefined();
    expect(watch.afterVerifyFailure('1 error in 0.09s', cause)).toBe("the same verify failure 2 times in a row: ERROR collecting test_a.py — ModuleNotFoundError: No module named 'requestz'");
    const plain = new RunawayWatch({ sameFailure: 1, noChangeTurns: 8 }, true);
    expect(plain.afterVerifyFailure('all quiet')).toBe('the same verify failure 1 time in a row');
  });

  it('counts again from one when the failure changes', () => {
    const watch = new RunawayWatch({ sameFailure: 2, noChangeTurns: 8 }, true);
    expect(watch.afterVerifyFailure('A failed')).toBeUndefined();
    expect(watch.afterVerifyFailure('B failed')).toBeUndefined();
    expect(watch.afterVerifyFailure('B failed')).toMatch(/2 times/);
  });

  it('stops after N tool turns that leave the worktree as it was, and not when turns change it', () => {
    const watch = new RunawayWatch({ sameFailure: 3, noChangeTurns: 3 }, true);
    expect(watch.afterToolTurn('f1')).toBeUndefined();
    expect(watch.afterToolTurn(undefined)).toBeUndefined();
    expect(watch.afterToolTurn('f1')).toBeUndefined();
    expect(watch.afterToolTurn('f2')).toBeUndefined();
    expect(watch.afterToolTurn('f2')).toBeUndefined();
    expect(watch.afterToolTurn(undefined)).toBeUndefined();
    expect(watch.afterToolTurn('f2')).toBe('3 turns in a row without a change to the worktree');
  });

  it('never counts unchanged turns in a phase that changes no files', () => {
    const watch = new RunawayWatch({ sameFailure: 3, noChangeTurns: 1 }, false);
    expect(watch.afterToolTurn(undefined)).toBeUndefined();
    expect(watch.afterToolTurn(undefined)).toBeUndefined();
  });
});

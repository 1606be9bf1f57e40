import { describe, expect, it } from 'vitest';
import { parsePeopleScript } from '../../../client/requests/people-script';
import { answerLine } from '../../../client/testing/scripted-run';
import { InvalidInput } from '../../../core/run/invalid-input';

const answers = (yaml: string) => parsePeopleScript(yaml, 'people.yaml').answers;

describe('a people script', () => {
  it('reads each kind of answer', () => {
    const read = answers(
      [
        'people:',
        '  - reject: after-verify:implement',
        '    reason: cover the empty list',
        '    retry: true',
        '  - approve: after-verify:implement',
        '  - wait: before:test',
        '    task: T2',
        '  - raiseBudgetUsd: 2.50',
        '    task: T1',
        '    note: worth it',
      ].join('\n'),
    );
    expect(read).toEqual([
      { action: 'reject', gate: 'after-verify:implement', reason: 'cover the empty list', retry: true },
      { action: 'approve', gate: 'after-verify:implement' },
      { action: 'wait', gate: 'before:test', task: 'T2' },
      { action: 'approve', gate: 'budget', budgetUsd: 2.5, task: 'T1', note: 'worth it' },
    ]);
    expect(read.map((a) => answerLine(a))).toEqual([
      'reject after-verify:implement (retry): cover the empty list',
      'approve after-verify:implement',
      'wait before:test',
      'raise budget to $2.50: worth it',
    ]);
    expect(answerLine(read[3], 'T1')).toBe('raise budget to $2.50 (T1): worth it');
  });

  it('reads `after`: the person answers once the gate has waited that long', () => {
    expect(answers('people:\n  - approve: merge\n    after: 1d\n  - reject: merge\n    reason: no\n    after: 90m\n  - approve: x\n    after: 1.5h\n')).toEqual([
      { action: 'approve', gate: 'merge', afterMs: 86_400_000 },
      { action: 'reject', gate: 'merge', reason: 'no', afterMs: 5_400_000 },
      { action: 'approve', gate: 'x', afterMs: 5_400_000 },
    ]);
  });

  it.each([
    ['people:\n  - raiseBudgetUsd: lots\n', 'people.yaml:2:21: "raiseBudgetUsd" must be the new budget, a number of USD above 0'],
    ['people:\n  - raiseBudgetUsd: 0\n', 'people.yaml:2:21: "raiseBudgetUsd" must be the new budget, a number of USD above 0'],
    ['people:\n  - approve: merge\n    after: tomorrow\n', 'people.yaml:3:12: "after" must be a time such as 30m, 3h or 1d'],
    ['people:\n  - wait: merge\n    after: 1d\n', 'people.yaml:3:12: `after` goes with an answer, not with wait'],
    ['people:\n  - raiseBudgetUsd: 2\n    reason: no\n', 'people.yaml:2:5: `reason` and `retry` go with reject'],
    [
      'people:\n  - approve: budget\n    raiseBudgetUsd: 2\n',
      'people.yaml:2:5: an answer names one of approve, reject or wait, with the gate (`reject: after-verify:test`), or raiseBudgetUsd with the new budget',
    ],
    ['people:\n  - approve: budget\n    budgetUsd: 2\n', 'people.yaml:3:5: unknown key "budgetUsd" (allowed: approve, reject, wait, raiseBudgetUsd, task, note, reason, retry, by, after)'],
  ])('refuses %j in one line naming the place', (yaml, message) => {
    expect(() => answers(yaml)).toThrow(new InvalidInput(message));
  });
});

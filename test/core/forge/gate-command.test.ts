import { describe, expect, it } from 'vitest';
import { decisionOf, gateCommandIn, runOfComment } from '../../../core/forge/gate-command';

describe('a /dex gate command in a comment', () => {
  it('is read from a line of its own, with the rest of the line as its text', () => {
    expect(gateCommandIn('LGTM\n/dex approve ship it')).toEqual({ action: 'approve', text: 'ship it' });
    expect(gateCommandIn('/dex reject the names are wrong')).toEqual({ action: 'reject', text: 'the names are wrong' });
    expect(gateCommandIn('/DEX Retry')).toEqual({ action: 'retry' });
    expect(gateCommandIn('please /dex approve')).toBeUndefined();
    expect(gateCommandIn('/dex approved')).toBeUndefined();
    expect(gateCommandIn('/dex merge')).toBeUndefined();
    expect(gateCommandIn('/dex choose B')).toEqual({ action: 'choose', text: 'B' });
  });

  it('stands for the decision dex approve, dex reject and dex choose send; a reject needs a reason, a choice a letter', () => {
    expect(decisionOf({ action: 'approve', text: 'ship it' }, 'ana', 'T1')).toEqual({ action: 'approve', by: 'ana', note: 'ship it', taskId: 'T1' });
    expect(decisionOf({ action: 'retry' }, 'ana')).toEqual({ action: 'reject', by: 'ana', retry: true, reason: 'ana asked for a retry on the forge' });
    expect(decisionOf({ action: 'reject', text: 'no' }, 'ana')).toEqual({ action: 'reject', by: 'ana', reason: 'no' });
    expect(decisionOf({ action: 'reject' }, 'ana')).toBeUndefined();
    // At a best-of-N task's choose gate: the attempt, one letter (docs/attempts.md#the-choose-gate).
    expect(decisionOf({ action: 'choose', text: 'b' }, 'ana', 'T1')).toEqual({ action: 'approve', by: 'ana', choice: 'B', taskId: 'T1' });
    expect(decisionOf({ action: 'choose', text: 'the second one' }, 'ana')).toBeUndefined();
    expect(decisionOf({ action: 'choose' }, 'ana')).toBeUndefined();
  });

  it("goes to the run and task a pull request of dex's names, else to the issue's run", () => {
    const description = 'Branch `dex/T2` at abc, proposed by dex (landing roadmap-demo-1a2b3c4d/T2).\n\nFixes #7';
    expect(runOfComment('octo', 'demo', 12, true, description)).toEqual({ workflowId: 'roadmap-demo-1a2b3c4d', taskId: 'T2' });
    expect(runOfComment('octo', 'demo', 7, false, 'an issue')).toEqual({ workflowId: 'issue-octo-demo-7' });
    expect(runOfComment('octo', 'demo', 12, true, 'a person\'s pull request')).toEqual({ workflowId: 'issue-octo-demo-12' });
  });
});

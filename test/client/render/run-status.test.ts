import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { decisionSaid, pauseSaid } from '../../../client/commands/signal-commands';
import { renderDecision } from '../../../client/render/run-log';
import { renderEndedStatus, renderLiveStatus } from '../../../client/render/run-status';
import { RunHistory } from '../../../client/run-history';
import type { RunStatus } from '../../../core/run/run-types';
import type { TaskResult } from '../../../core/task/task-types';

const ID = 'task-math-fix-sum-1';
const webUi = `http://127.0.0.1:8233/namespaces/default/workflows/${ID}`;
const startTime = new Date('2025-06-01T12:00:00Z');

const waiting: RunStatus = {
  kind: 'task',
  state: 'waiting',
  waitingFor: { gate: 'blocked', since: '2025-06-01T12:01:00Z', reason: 'delete the test?' },
  current: { taskId: 'fix-sum', phase: 'edit', turn: 2 },
  tokens: { input: 100, output: 10, cacheRead: 0, cacheWrite: 0 },
  costUsd: 0.0012,
  type: 'code_modify',
  steps: { current: 'edit', completed: ['read'], pending: ['test'] },
};

describe('dex status of a live run', () => {
  it('shows its title and time, its steps, and while it waits the dex and temporal commands that answer it', () => {
    const text = renderLiveStatus(ID, waiting, { title: 'Fix sum', startTime, webUi }, [], new Date('2025-06-01T12:03:05Z'));
    expect(text.split('\n')).toEqual([
      `${ID}: waiting`,
      'Fix sum · running for 3m05s',
      '[fix-sum edit] turn 2 waiting at gate "blocked": delete the test? · 100 in / 10 out · $0.0012',
      'type: code_modify · read completed · now edit · test to come',
      'answer with dex:',
      `  dex approve ${ID} --note "…"`,
      `  dex reject ${ID} --reason "…"`,
      'or the stock Temporal CLI:',
      `  temporal workflow signal --workflow-id ${ID} --name approve --input '{"note":"ok"}'`,
      `  temporal workflow signal --workflow-id ${ID} --name reject --input '{"reason":"why"}'`,
      `Web UI: ${webUi}`,
    ]);
  });

  it('says a paused run that waits at a gate will stop after it', () => {
    const text = renderLiveStatus(ID, { ...waiting, paused: true }, { startTime });
    expect(text).toContain('waiting at gate "blocked": delete the test? (paused: stops after this gate until resumed)');
  });

  it('counts what the earlier runs of a chain ended, in the terms of its kind', () => {
    const earlier = { done: 98, skipped: 1, failed: 1, runs: 2 };
    const sheet: RunStatus = { ...waiting, kind: 'sheet', state: 'running', waitingFor: null, earlier };
    expect(renderLiveStatus(ID, sheet, { startTime })).toContain('earlier runs of the chain (2): 98 statements done, 1 skipped, 1 failed');
    expect(renderLiveStatus(ID, { ...sheet, kind: 'layer' }, { startTime })).toContain('earlier runs of the chain (2): 98 targets done, 1 skipped, 1 failed');
  });
});

describe('dex status of a best-of-N task (docs/attempts.md)', () => {
  const evidence = { passed: true, testsFixed: [], testsBroken: [], checksFailed: [], lines: 14, files: 1 };
  const attempts: RunStatus['attempts'] = [
    { name: 'A', workflowId: `${ID}-A`, state: 'failed', costUsd: 0.2, note: 'verify failed: adds' },
    { name: 'B', workflowId: `${ID}-B`, state: 'completed', costUsd: 0.3, evidence, score: -1 },
  ];
  const reason = '2 tried, 1 passed, chose B: all tests pass, 14 lines, $0.3000';

  it('shows the attempts table while it waits at the choose gate, and `dex choose` among the answers', () => {
    const choosing: RunStatus = { ...waiting, type: undefined, steps: undefined, waitingFor: { gate: 'choose', since: waiting.waitingFor!.since, reason }, attempts };
    const lines = renderLiveStatus(ID, choosing, { startTime }).split('\n');
    expect(lines.slice(3, 8)).toEqual([
      'attempts: 2, 1 failed, 1 completed',
      '  attempt  state      variant        tests  checks  lines  review  cost     score',
      '  A        failed     as configured  —      —       —      —       $0.2000  —',
      '  B        completed  as configured  pass   pass    14     —       $0.3000  -1',
      '  A: verify failed: adds',
    ]);
    expect(lines).toContain(`  dex choose ${ID} ATTEMPT`);
  });

  it('shows the choice and the table once it ended, the chosen attempt marked', () => {
    const result: TaskResult = { taskId: 'fix-sum', state: 'completed', branch: `dex/${ID}-B`, turns: 2, tokens: waiting.tokens, costUsd: 0.5, verifyPassed: true, attempts, chosen: { name: 'B', by: 'ana', reason } };
    const lines = renderEndedStatus('taskWorkflow', ID, { state: 'completed', result }, { startTime }).split('\n');
    expect(lines).toContain(`attempts: ${reason} (chosen by ana)`);
    expect(lines).toContain('* B        completed  as configured  pass   pass    14     —       $0.3000  -1');
  });
});

describe('dex status of an ended run', () => {
  it('shows its title, how long it took and its Web UI page', () => {
    const result: TaskResult = { taskId: 'fix-sum', state: 'completed', branch: 'dex/x', commit: 'abc', turns: 1, tokens: waiting.tokens, costUsd: 0.0012, verifyPassed: true };
    const text = renderEndedStatus('taskWorkflow', ID, { state: 'completed', result }, { title: 'Fix sum', startTime, closeTime: new Date('2025-06-01T12:00:42Z'), webUi });
    expect(text.split('\n')).toEqual([`${ID}: completed`, 'Fix sum · took 42s', 'commit: abc on dex/x', 'tokens: 100 in / 10 out · $0.0012 · 1 model turn', `Web UI: ${webUi}`]);
    const quick = renderEndedStatus('taskWorkflow', ID, { state: 'completed', result }, { startTime, closeTime: new Date(startTime.getTime() + 996) });
    expect(quick.split('\n')[1]).toBe('took 996 ms');
  });
});

describe('what a decision does, as the commands say it', () => {
  it('says a reject with --retry retries', () => {
    expect(decisionSaid({ action: 'reject', reason: 'no', retry: true }, { gate: 'after-verify:implement' })).toBe(
      'rejected gate "after-verify:implement": retrying: its phase runs again with the reason as context (while retries last)',
    );
    expect(decisionSaid({ action: 'reject', reason: 'no' }, { gate: 'blocked', taskId: 'T1' })).toBe('rejected gate "blocked" of task T1');
    expect(decisionSaid({ action: 'approve' }, { gate: 'blocked' })).toBe('approved gate "blocked"');
    expect(decisionSaid({ action: 'approve', choice: 'B' }, { gate: 'choose' })).toBe('chose attempt B at gate "choose": it lands');
  });

  it('says when a pause takes effect: after the gate a run waits at, else after its current step', () => {
    expect(pauseSaid(ID, waiting)).toBe(`paused: it still waits at gate "blocked"; once that is answered it stops before its next step (dex resume ${ID} lets it go on)`);
    expect(pauseSaid(ID, undefined)).toBe(`paused: it stops after its current step (dex resume ${ID} lets it go on)`);
  });
});

describe("a run's decisions in dex log", () => {
  const payloads = (value: unknown) => ({ payloads: [defaultPayloadConverter.toPayload(value)] });
  const history = {
    events: [
      { eventId: 1, workflowExecutionStartedEventAttributes: { input: payloads({ taskId: 'fix-sum' }) } },
      {
        eventId: 5,
        workflowExecutionUpdateAcceptedEventAttributes: {
          acceptedRequest: { meta: { updateId: 'u1' }, input: { name: 'decide', args: payloads({ action: 'reject', reason: 'out of scope', by: 'ana', retry: true }) } },
        },
      },
      { eventId: 6, workflowExecutionUpdateCompletedEventAttributes: { meta: { updateId: 'u1' }, outcome: { success: payloads({ gate: 'after-verify:implement' }) } } },
      { eventId: 9, workflowExecutionSignaledEventAttributes: { signalName: 'approve', input: payloads({ note: 'ok', by: 'bo' }) } },
      { eventId: 10, workflowExecutionSignaledEventAttributes: { signalName: 'pause', input: payloads({}) } },
    ],
  };
  const handle = { fetchHistory: async () => history, client: { options: { loadedDataConverter: { payloadCodecs: [] } } } } as unknown as WorkflowHandle;

  it('come from its history: the decide updates with their gates, and the signals', async () => {
    const decisions = (await RunHistory.of(handle)).decisions();
    expect(decisions).toEqual([
      { action: 'reject', reason: 'out of scope', by: 'ana', retry: true, gate: 'after-verify:implement', via: 'decide' },
      { action: 'approve', note: 'ok', by: 'bo', via: 'signal' },
    ]);
    expect(decisions.map(renderDecision)).toEqual([
      '  gate "after-verify:implement" rejected by ana: out of scope (its phase runs again)',
      '  approved by bo (signal): ok',
    ]);
    expect(renderDecision({ action: 'approve', choice: 'B', by: 'ana', gate: 'choose', via: 'decide' })).toBe('  gate "choose" approved by ana, choosing attempt B');
  });
});

// `--llm record:FILE` writes the API errors a live run was retried after (docs/testing-your-flows.md#model-errors-and-retries):
// a task recorded against the fake Anthropic server, which answers its first call with 529 and then 500, leaves two
// error lines before that call's answer; the cassette, replayed, asks the model as many times as the live run did.
import { temporal } from '@temporalio/proto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LlmSpec } from '../../../core/run/run-types';
import type { TaskResult } from '../../../core/task/task-types';
import { fixSumTurns } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { sampleRepo, taskInput } from '../../support/env/dev-server-env';
import { startFakeAnthropic } from '../../support/model/fake-anthropic-server';
import { modelCallTurns } from '../../support/model/model-call-turns';

const dex = useDexEnvironment({ server: 'time-skipping', cassette: fixSumTurns('R1'), queue: 'dex-ts-record-errors' });

const EventType = temporal.api.enums.v1.EventType;

/** Runs task R1 as `workflowId` with `llm` on a fresh sample repository, to its end. */
async function runR1(workflowId: string, llm: LlmSpec) {
  const handle = await dex.start('taskWorkflow', workflowId, taskInput('R1', sampleRepo(), dex.worker.hostQueue, { llm }));
  const result = (await handle.result()) as TaskResult;
  return { handle, result };
}

/**
 * The model calls of a run as attempts: each callModel activity's last attempt number, summed (a retried call counts each try),
 * and the turns a call answered after its first (docs/performance.md#reading-turns-in-one-call).
 */
async function modelAttempts(workflowId: string): Promise<number> {
  const history = await dex.client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = new Map<number, string>();
  let attempts = 0;
  for (const e of history.events ?? []) {
    if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) scheduled.set(Number(e.eventId), e.activityTaskScheduledEventAttributes!.activityType!.name!);
    if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
      const started = e.activityTaskStartedEventAttributes!;
      if (scheduled.get(Number(started.scheduledEventId)) === 'callModel') attempts += started.attempt ?? 1;
    }
  }
  return modelCallTurns(history.events ?? []).reduce<number>((sum, turns) => sum + (turns ?? 1) - 1, attempts);
}

describe('--llm record:FILE and the errors a call was retried after', () => {
  it('records a 529 and a 500 before the answer, and a replay asks as many times', async () => {
    const cassette = join(mkdtempSync(join(tmpdir(), 'dex-record-errors-')), 'r1.cassette.jsonl');
    dex.fake.injectFault({ status: 529, headers: { 'retry-after': '30' }, match: { task: 'R1' } });
    dex.fake.injectFault({ status: 500, match: { task: 'R1' } });
    const live = await runR1('task-math-R1-live', { kind: 'record', path: cassette });
    expect(live.result.state).toBe('completed');
    const liveRequests = dex.requestsFor('R1').length;
    expect(liveRequests).toBe(5); // three turns, the first asked three times

    const lines = readFileSync(cassette, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => ('error' in l ? l.error : 'answer'))).toEqual([
      { status: 529, type: 'overloaded_error', message: 'fake overloaded_error', retryAfterSeconds: 30 },
      { status: 500, type: 'api_error', message: 'fake api_error' },
      'answer',
      'answer',
      'answer',
    ]);
    // The error lines carry the key of the call they failed, the answer's own.
    expect(lines[0].call).toBe(lines[2].call);
    expect(lines[1].call).toBe(lines[2].call);

    // Served by a fake that answers from the recorded cassette, the same run makes the same requests.
    const again = await startFakeAnthropic({ cassette });
    try {
      const served = await runR1('task-math-R1-served', { kind: 'anthropic', baseUrl: again.url });
      expect(served.result.state).toBe('completed');
      expect(again.requests).toHaveLength(liveRequests);
    } finally {
      await again.close();
    }

    // Replayed in the worker (`--llm replay:FILE`), each attempt takes the next line: five attempts, the backoff passed at once.
    const started = Date.now();
    const before = await dex.env.currentTimeMs();
    const replay = await runR1('task-math-R1-replay', { kind: 'replay', path: cassette });
    expect(replay.result.state).toBe('completed');
    expect(await modelAttempts('task-math-R1-replay')).toBe(liveRequests);
    expect(await modelAttempts('task-math-R1-live')).toBe(liveRequests);
    const simulatedMs = (await dex.env.currentTimeMs()) - before;
    expect(simulatedMs).toBeGreaterThanOrEqual(30_000);
    console.log(`recorded: ${liveRequests} requests; replayed: ${await modelAttempts('task-math-R1-replay')} attempts, ${(simulatedMs / 1000).toFixed(1)} s simulated in ${((Date.now() - started) / 1000).toFixed(1)} s wall`);
  });
});

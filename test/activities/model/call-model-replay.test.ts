import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callInput, failureOf, openFixture, plainReply, runCallModel, type ModelActivities, type ModelCallFixture } from '../../support/model/call-model-fixture';
import { startFakeAnthropic } from '../../support/model/fake-anthropic-server';
import type { LlmSpec } from '../../../core/run/run-types';

let fixture: ModelCallFixture;

beforeAll(() => {
  fixture = openFixture();
});

afterAll(() => fixture.close());

describe('callModel from a replay cassette', () => {
  const line = (task: string, phase: string, text: string) => JSON.stringify({ task, phase, response: plainReply(text) });
  let path: string;

  beforeAll(() => {
    path = join(fixture.dir, 'replay.jsonl');
    const lines = [line('T1', 'implement', 'one'), line('T2', 'implement', 'two'), '', line('*', 'implement', 'star'), line('T1', '*', 't1-any')];
    writeFileSync(path, `${lines.join('\n')}\n`);
  });

  /** Calls the model for the next turn of `transcriptId` and returns the reply's text. */
  async function turn(acts: ModelActivities, transcriptId: string, taskId: string, scope: string, userSeq: number) {
    const followUp = userSeq === 0 ? undefined : { text: 'next' };
    const input = callInput(transcriptId, taskId, { kind: 'replay', path }, { userSeq, followUp, cassetteScope: scope });
    return runCallModel(acts, input);
  }

  it('takes matching lines in file order, wildcards included, until none is left', async () => {
    const acts = fixture.activities();
    const t1 = fixture.newTranscript();
    expect((await turn(acts, t1, 'T1', 'scope-a', 0)).textPreview).toBe('one');
    expect((await turn(acts, t1, 'T1', 'scope-a', 2)).textPreview).toBe('star');
    const last = await turn(acts, t1, 'T1', 'scope-a', 4);
    expect(last.textPreview).toBe('t1-any');
    expect(last.usage).toEqual({ input: 10, output: 5, cacheRead: 0, cacheWrite: 0 });
    expect(last.costUsd).toBeCloseTo((10 * 3 + 5 * 15) / 1e6, 12);

    const failure = await failureOf(turn(acts, t1, 'T1', 'scope-a', 6));
    expect(failure.type).toBe('CassetteExhausted');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('"T1"');
    expect(failure.message).toContain('"implement"');
  });

  it('never gives two calls of one scope the same line', async () => {
    const acts = fixture.activities();
    const t1 = fixture.newTranscript();
    const t2 = fixture.newTranscript();
    expect((await turn(acts, t1, 'T1', 'scope-b', 0)).textPreview).toBe('one');
    expect((await turn(acts, t2, 'T2', 'scope-b', 0)).textPreview).toBe('two');
    expect((await turn(acts, t1, 'T1', 'scope-b', 2)).textPreview).toBe('star');
    expect((await failureOf(turn(acts, t2, 'T2', 'scope-b', 2))).type).toBe('CassetteExhausted');
    // another scope starts from the top
    expect((await turn(acts, fixture.newTranscript(), 'T2', 'scope-c', 0)).textPreview).toBe('two');
  });

  it('gives a retried call the line it claimed before', async () => {
    const t1 = fixture.newTranscript();
    // an earlier attempt claimed line 5 and died before storing the reply
    fixture.store.claimCassetteLine('scope-d', path, `${t1}#1`, [5]);
    expect((await turn(fixture.activities(), t1, 'T1', 'scope-d', 0)).textPreview).toBe('t1-any');
  });

  it('re-reads a cassette that changed', async () => {
    const acts = fixture.activities();
    const t3 = fixture.newTranscript();
    expect((await turn(acts, t3, 'T3', 'scope-e', 0)).textPreview).toBe('star');
    expect((await failureOf(turn(acts, t3, 'T3', 'scope-e', 2))).type).toBe('CassetteExhausted');
    appendFileSync(path, `${line('T3', 'implement', 'appended')}\n`);
    expect((await turn(acts, t3, 'T3', 'scope-e', 2)).textPreview).toBe('appended');
  });

  it('stores a placeholder for an empty reply, so the transcript stays valid for the API', async () => {
    const emptyPath = join(fixture.dir, 'empty.jsonl');
    const empty = { ...plainReply(''), content: [], usage: { input_tokens: 3, output_tokens: 0 } };
    writeFileSync(emptyPath, `${JSON.stringify({ task: '*', phase: '*', response: empty })}\n`);
    const transcriptId = fixture.newTranscript();
    const result = await runCallModel(fixture.activities(), callInput(transcriptId, 'T1', { kind: 'replay', path: emptyPath }));
    expect(result.textPreview).toBe('(empty reply)');
    expect(result.completion).toBeNull();
    expect(fixture.store.getMessage(transcriptId, 1)?.content).toEqual([{ type: 'text', text: '(empty reply)' }]);
  });

  it('fails without retrying on a missing or broken cassette', async () => {
    const missing = await failureOf(
      runCallModel(fixture.activities(), callInput(fixture.newTranscript(), 'T1', { kind: 'replay', path: join(fixture.dir, 'nope.jsonl') })),
    );
    expect(missing.type).toBe('CassetteInvalid');
    expect(missing.nonRetryable).toBe(true);
    expect(missing.message).toContain('nope.jsonl');

    const broken = join(fixture.dir, 'broken.jsonl');
    const noInput = { ...plainReply(''), content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file' }] };
    writeFileSync(broken, `${line('T1', 'implement', 'ok')}\n${JSON.stringify({ task: 'T1', phase: 'implement', response: noInput })}\n`);
    const invalid = await failureOf(runCallModel(fixture.activities(), callInput(fixture.newTranscript(), 'T1', { kind: 'replay', path: broken })));
    expect(invalid.type).toBe('CassetteInvalid');
    expect(invalid.nonRetryable).toBe(true);
    expect(invalid.message).toMatch(/broken\.jsonl:2: response\.content\[0\] \(tool_use\) has no "input"$/);
  });
});

describe('error lines: a cassette line that answers with an API error', () => {
  const overloaded = (retryAfterSeconds?: number) => ({ status: 529, type: 'overloaded_error', message: 'Overloaded', ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) });
  const errorLine = (task: string, error: object) => JSON.stringify({ task, phase: 'implement', error });
  const answer = (task: string, text: string) => JSON.stringify({ task, phase: 'implement', response: plainReply(text) });
  let path: string;

  beforeAll(() => {
    path = join(fixture.dir, 'errors.jsonl');
    const lines = [
      errorLine('E1', overloaded(30)),
      errorLine('E1', overloaded()),
      answer('E1', 'after two'),
      errorLine('E2', { status: 400, type: 'invalid_request_error', message: 'messages: roles must alternate' }),
      answer('E2', 'never taken'),
    ];
    writeFileSync(path, `${lines.join('\n')}\n`);
  });

  const call = (transcriptId: string, task: string, scope: string) =>
    runCallModel(fixture.activities(), callInput(transcriptId, task, { kind: 'replay', path }, { cassetteScope: scope }));

  it('raises each error once, classified as a live one, and the call asked again takes the next line', async () => {
    const t = fixture.newTranscript();
    const first = await failureOf(call(t, 'E1', 'scope-errors'));
    expect(first).toMatchObject({ type: 'ModelOverloaded', nonRetryable: false, nextRetryDelay: 30_000, message: 'Anthropic API 529 overloaded_error: Overloaded' });
    const second = await failureOf(call(t, 'E1', 'scope-errors'));
    expect(second).toMatchObject({ type: 'ModelOverloaded', nonRetryable: false, nextRetryDelay: undefined });
    expect((await call(t, 'E1', 'scope-errors')).textPreview).toBe('after two');
    // Asked again after its answer (a retry after a crash): the same answer, no line taken.
    expect((await call(t, 'E1', 'scope-errors')).textPreview).toBe('after two');
  });

  it('fails a non-retryable error (400) at once', async () => {
    const failure = await failureOf(call(fixture.newTranscript(), 'E2', 'scope-errors'));
    expect(failure).toMatchObject({ type: 'ModelBadRequest', nonRetryable: true, message: 'Anthropic API 400 invalid_request_error: messages: roles must alternate' });
  });

  it('is the failure the live API gives for the same error', async () => {
    const fake = await startFakeAnthropic({ cassette: path });
    try {
      const live: LlmSpec = { kind: 'anthropic', baseUrl: fake.url };
      const liveTranscript = fixture.newTranscript();
      const replayTranscript = fixture.newTranscript();
      const shape = ({ type, nonRetryable, nextRetryDelay, message }: ApplicationFailure) => ({ type, nonRetryable, nextRetryDelay, message });
      for (const task of ['E1', 'E1', 'E2']) {
        const fromLive = await failureOf(runCallModel(fixture.activities({ baseURL: fake.url }), callInput(liveTranscript, task, live)));
        const replayed = await failureOf(call(task === 'E1' ? replayTranscript : fixture.newTranscript(), task, 'scope-errors-live'));
        expect(shape(replayed)).toEqual(shape(fromLive));
      }
    } finally {
      await fake.close();
    }
  });
});

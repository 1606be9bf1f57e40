import Anthropic from '@anthropic-ai/sdk';
import { CancelledFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelActivities } from '../../../activities/model/call-model';
import { AGENT_TOOL_NAMES } from '../../../core/task/agent-tools';
import { SYSTEM_PROMPT } from '../../../core/task/agent-system-prompt';
import type { CassetteLine, CassetteResponse } from '../../../core/parsing/cassette';
import { costOf } from '../../../core/run/pricing';
import type { LlmSpec } from '../../../core/run/run-types';
import {
  activityEnvironment,
  callInput,
  failureOf,
  MODEL,
  openFixture,
  plainReply,
  runCallModel,
  runCallModelWithin,
  WORKFLOW_ID,
  type ModelCallFixture,
} from '../../support/model/call-model-fixture';
import { startFakeAnthropic, type FakeAnthropic } from '../../support/model/fake-anthropic-server';

const textReply: CassetteResponse = {
  model: 'claude-sonnet-4-5-20250929',
  content: [{ type: 'text', text: 'Added `sum` — done ✓\n```json\n{"status":"complete","summary":"added sum to src/math.js"}\n```' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 1200, output_tokens: 300, cache_creation_input_tokens: 1000, cache_read_input_tokens: 5000 },
};
const toolReply: CassetteResponse = {
  content: [
    { type: 'text', text: 'Let me look first. {"status":"complete","summary":"not yet"}' },
    { type: 'tool_use', id: 'toolu_read', name: 'read_file', input: { path: 'src/math.js' } },
    { type: 'tool_use', id: 'toolu_list', name: 'list_files', input: {} },
  ],
  stop_reason: 'tool_use',
  usage: { input_tokens: 50, output_tokens: 40 },
};
const thinkingReply: CassetteResponse = {
  content: [
    { type: 'thinking', thinking: 'The diff changes sum; the tests cover it.', signature: 'sig-1' },
    { type: 'text', text: '{"status":"complete","summary":"looks right"}' },
  ],
  stop_reason: 'end_turn',
  // output_tokens counts the thinking too, as the API does.
  usage: { input_tokens: 900, output_tokens: 1500 },
};
const cassette: CassetteLine[] = [
  { line: 1, task: 'text', phase: 'implement', response: textReply },
  { line: 2, task: 'tools', phase: 'implement', response: toolReply },
  { line: 3, task: 'tools', phase: 'implement', response: plainReply('{"status":"continue","reason":"read it"}') },
  { line: 4, task: 'fault', phase: 'implement', response: plainReply('after the fault') },
  { line: 5, task: '*', phase: 'implement', response: plainReply('{"status":"blocked","reason":"any task"}') },
  { line: 6, task: 'late', phase: 'implement', response: plainReply('{"status":"complete","summary":"late attempt"}') },
  { line: 7, task: 'budget', phase: 'implement', response: textReply },
  { line: 8, task: 'thinks', phase: 'review', response: thinkingReply },
];

let fixture: ModelCallFixture;
let fake: FakeAnthropic;

beforeAll(async () => {
  fixture = openFixture();
  fake = await startFakeAnthropic({ cassette });
});

afterAll(async () => {
  await fake.close();
  await fixture.close();
});

describe('callModel against the Anthropic API', () => {
  const llm = (): LlmSpec => ({ kind: 'anthropic', baseUrl: fake.url });
  const activities = (client: { timeout?: number } = {}) => fixture.activities({ ...client, baseURL: fake.url });

  it('streams a reply, stores it, and accounts for it', async () => {
    const transcriptId = fixture.newTranscript();
    const env = activityEnvironment();
    let heartbeats = 0;
    env.on('heartbeat', () => heartbeats++);
    const result = await runCallModel(activities(), callInput(transcriptId, 'text', llm()), env);

    const usage = { input: 1200, output: 300, cacheWrite: 1000, cacheRead: 5000 };
    expect(result).toEqual({
      stopReason: 'end_turn',
      toolUses: [],
      completion: { status: 'complete', summary: 'added sum to src/math.js' },
      textPreview: (textReply.content[0].text as string).slice(0, 200),
      usage,
      costUsd: costOf(MODEL, usage),
      model: 'claude-sonnet-4-5-20250929',
      reused: false,
    });
    expect(result.costUsd).toBeCloseTo((1200 * 3 + 300 * 15 + 1000 * 3.75 + 5000 * 0.3) / 1e6, 12);
    expect(heartbeats).toBeGreaterThan(0);
    expect(fixture.store.getMessage(transcriptId, 1)).toEqual({ seq: 1, role: 'assistant', content: textReply.content });
    expect(fixture.store.getModelCall(`${transcriptId}#1`)).toMatchObject({
      workflowId: WORKFLOW_ID,
      taskId: 'text',
      phase: 'implement',
      ...usage,
      stopReason: 'end_turn',
    });

    const request = fake.requests.at(-1)!;
    expect(request.headers['x-dex-task']).toBe('text');
    expect(request.headers['x-dex-phase']).toBe('implement');
    expect(request.headers['x-dex-call']).toBe(`${transcriptId}#1`);
    expect(request.body).toMatchObject({ model: MODEL, max_tokens: 4096, stream: true });
    expect(request.body?.system).toEqual([{ type: 'text', text: SYSTEM_PROMPT, cache_control: { type: 'ephemeral' } }]);
    const tools = request.body?.tools ?? [];
    expect(tools.map((t) => t.name)).toEqual([...AGENT_TOOL_NAMES]);
    expect(tools.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
    expect(tools.slice(0, -1).every((t) => t.cache_control === undefined)).toBe(true);
    expect(request.body?.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Add a sum function to src/math.js', cache_control: { type: 'ephemeral' } }] },
    ]);
  });

  it('reuses a stored reply without a new request', async () => {
    const transcriptId = fixture.newTranscript();
    const acts = activities();
    const first = await runCallModel(acts, callInput(transcriptId, 'text2', llm()));
    const requestsBefore = fake.requests.length;
    const again = await runCallModel(acts, callInput(transcriptId, 'text2', llm()));
    expect(fake.requests.length).toBe(requestsBefore);
    expect(again).toEqual({ ...first, reused: true });
    expect(first.completion).toEqual({ status: 'blocked', reason: 'any task' });
  });

  it('reports the reply an overtaken earlier attempt stored first', async () => {
    const transcriptId = fixture.newTranscript();
    const earlier = [{ type: 'text', text: '{"status":"continue","reason":"earlier attempt"}' }];
    const usage = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 };
    const acts = createModelActivities({
      store: fixture.dexStore,
      dexHome: fixture.dir,
      dependencyCache: `${fixture.dir}/deps-cache`,
      anthropicClient: () => {
        // the earlier attempt finishes while this one is on the wire
        fixture.store.recordModelReply(transcriptId, 1, earlier, {
          callKey: `${transcriptId}#1`, workflowId: WORKFLOW_ID, taskId: 'late', phase: 'implement', model: MODEL,
          ...usage, costUsd: 0.5, durationMs: 1, stopReason: 'end_turn',
        });
        return new Anthropic({ apiKey: 'test-key', baseURL: fake.url, maxRetries: 0, logLevel: 'off' });
      },
    });
    const result = await runCallModel(acts, callInput(transcriptId, 'late', llm()));
    expect(result).toMatchObject({ completion: { status: 'continue', reason: 'earlier attempt' }, usage, costUsd: 0.5, reused: true });
    expect(fixture.store.getMessage(transcriptId, 1)?.content).toEqual(earlier);
  });

  it('returns tool uses without a completion, then sends their results back in order', async () => {
    const transcriptId = fixture.newTranscript();
    const acts = activities();
    const result = await runCallModel(acts, callInput(transcriptId, 'tools', llm()));
    expect(result.stopReason).toBe('tool_use');
    expect(result.toolUses).toEqual([
      { id: 'toolu_read', name: 'read_file', step: 'read_file src/math.js' },
      { id: 'toolu_list', name: 'list_files', step: 'list_files' },
    ]);
    expect(result.completion).toBeNull();
    expect(fixture.store.getMessage(transcriptId, 1)?.content).toEqual(toolReply.content);

    fixture.store.putToolResult(transcriptId, 'toolu_read', { name: 'read_file', content: 'export {}', isError: false });
    fixture.store.putToolResult(transcriptId, 'toolu_list', { name: 'list_files', content: 'no such folder', isError: true });
    fixture.store.putArtifact(`${transcriptId}/verify/1`, 'verify', 'npm test: 1 failing');
    const followUp = { toolUseIds: ['toolu_list', 'toolu_read'], artifactIds: [`${transcriptId}/verify/1`], text: 'Fix it.' };
    const next = await runCallModel(acts, callInput(transcriptId, 'tools', llm(), { userSeq: 2, followUp }));
    expect(next.completion).toEqual({ status: 'continue', reason: 'read it' });

    const userContent = [
      { type: 'tool_result', tool_use_id: 'toolu_list', content: 'no such folder', is_error: true },
      { type: 'tool_result', tool_use_id: 'toolu_read', content: 'export {}', is_error: false },
      { type: 'text', text: 'npm test: 1 failing' },
      { type: 'text', text: 'Fix it.' },
    ];
    expect(fixture.store.getMessage(transcriptId, 2)).toEqual({ seq: 2, role: 'user', content: userContent });
    const sent = fake.requests.at(-1)!.body?.messages ?? [];
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(sent[0].content).toBe('Add a sum function to src/math.js');
    expect(sent[1].content).toEqual(toolReply.content);
    expect(sent[2].content).toEqual([...userContent.slice(0, 3), { ...userContent[3], cache_control: { type: 'ephemeral' } }]);
  });

  it('fails without a request when a follow-up names a tool result that is not stored', async () => {
    const transcriptId = fixture.newTranscript();
    fixture.store.appendMessage(transcriptId, 1, 'assistant', [{ type: 'tool_use', id: 'toolu_x', name: 'read_file', input: { path: 'a' } }]);
    const requestsBefore = fake.requests.length;
    const failure = await failureOf(
      runCallModel(activities(), callInput(transcriptId, 'tools', llm(), { userSeq: 2, followUp: { toolUseIds: ['toolu_x'] } })),
    );
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('toolu_x');
    expect(fake.requests.length).toBe(requestsBefore);
  });

  it('turns 429 with retry-after into a retryable failure with nextRetryDelay, and a retry then succeeds', async () => {
    const transcriptId = fixture.newTranscript();
    fake.injectFault({ status: 429, headers: { 'retry-after': '2' }, match: { task: 'fault' } });
    const acts = activities();
    const failure = await failureOf(runCallModel(acts, callInput(transcriptId, 'fault', llm())));
    expect(failure.type).toBe('ModelRateLimited');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBe(2000);
    expect(fixture.store.getMessage(transcriptId, 1)).toBeUndefined();

    const retried = await runCallModel(acts, callInput(transcriptId, 'fault', llm()));
    expect(retried.textPreview).toBe('after the fault');
  });

  it('retries 529 overloaded', async () => {
    fake.injectFault({ status: 529 });
    const failure = await failureOf(runCallModel(activities(), callInput(fixture.newTranscript(), 'fault', llm())));
    expect(failure.type).toBe('ModelOverloaded');
    expect(failure.nonRetryable).toBe(false);
  });

  it('does not retry 401 and says why without the key', async () => {
    fake.injectFault({ status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } });
    const failure = await failureOf(runCallModel(activities(), callInput(fixture.newTranscript(), 'fault', llm())));
    expect(failure.type).toBe('ModelAuth');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe('Anthropic API 401 authentication_error: invalid x-api-key');
    expect(JSON.stringify(failure)).not.toContain('test-key');
  });

  it('retries a malformed stream', async () => {
    fake.injectFault({ kind: 'malformed' });
    const failure = await failureOf(runCallModel(activities(), callInput(fixture.newTranscript(), 'fault', llm())));
    expect(failure.type).toBe('ModelBadResponse');
    expect(failure.nonRetryable).toBe(false);
  });

  it('retries a request that times out', async () => {
    fake.injectFault({ kind: 'timeout' });
    const failure = await failureOf(runCallModel(activities({ timeout: 300 }), callInput(fixture.newTranscript(), 'fault', llm())));
    expect(failure.type).toBe('ModelTimeout');
    expect(failure.nonRetryable).toBe(false);
  });

  it('stops promptly when the activity is cancelled', async () => {
    fake.injectFault({ kind: 'timeout' });
    const env = activityEnvironment();
    const requestsBefore = fake.requests.length;
    const running = runCallModel(activities(), callInput(fixture.newTranscript(), 'fault', llm()), env);
    await expect.poll(() => fake.requests.length).toBe(requestsBefore + 1);
    env.cancel();
    await expect(running).rejects.toBeInstanceOf(CancelledFailure);
  });

  it('makes no request when the worst case does not fit its allowance, and says what it is', async () => {
    const transcriptId = fixture.newTranscript();
    const requestsBefore = fake.requests.length;
    const deferred = await runCallModelWithin(activities(), callInput(transcriptId, 'budget', llm(), { allowance: { usd: 0.01 } }));
    expect(fake.requests.length).toBe(requestsBefore);
    if (!('deferred' in deferred)) throw new Error('expected the call to be deferred');
    // max_tokens 4096 at $15/M is $0.061 of output alone; the prompt adds its characters / 3 at the cache-write price.
    expect(deferred.worst.usd).toBeGreaterThan(4096 * 15 / 1e6);
    expect(deferred.worst.tokens).toBeGreaterThan(4096);
    expect(fixture.store.getModelCall(`${transcriptId}#1`)).toBeUndefined();

    const made = await runCallModelWithin(activities(), callInput(transcriptId, 'budget', llm(), { allowance: { usd: deferred.worst.usd } }));
    expect('deferred' in made).toBe(false);
    expect(fake.requests.length).toBe(requestsBefore + 1);
    // The worst case bounds what the call cost.
    expect((made as { costUsd: number }).costUsd).toBeLessThanOrEqual(deferred.worst.usd);
  });

  it('asks for extended thinking on top of max_tokens, keeps the thinking block and prices its tokens as output', async () => {
    const transcriptId = fixture.newTranscript();
    const result = await runCallModel(activities(), callInput(transcriptId, 'thinks', llm(), { phase: 'review', thinkingBudget: 2048 }));
    const request = fake.requests.at(-1)!;
    expect(request.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 2048 }, max_tokens: 4096 + 2048 });
    expect(result.completion).toEqual({ status: 'complete', summary: 'looks right' });
    expect(result.usage).toEqual({ input: 900, output: 1500, cacheRead: 0, cacheWrite: 0 });
    expect(result.costUsd).toBeCloseTo((900 * 3 + 1500 * 15) / 1e6, 12);
    // The thinking block stays in the transcript: the API wants it back with the next turn.
    expect(fixture.store.getMessage(transcriptId, 1)?.content).toEqual(thinkingReply.content);
  });

  it('refuses a model it cannot price before calling it', async () => {
    const requestsBefore = fake.requests.length;
    const failure = await failureOf(
      runCallModel(activities(), callInput(fixture.newTranscript(), 'text', llm(), { model: 'gpt-4o' })),
    );
    expect(failure.type).toBe('UnknownModel');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('gpt-4o');
    expect(fake.requests.length).toBe(requestsBefore);
  });
});


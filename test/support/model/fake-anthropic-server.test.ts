import Anthropic, { BadRequestError, InternalServerError, RateLimitError } from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CassetteLine, CassetteResponse } from '../../../core/parsing/cassette';
import { MODEL } from './call-model-fixture';
import { startFakeAnthropic, type FakeAnthropic } from './fake-anthropic-server';

const textReply: CassetteResponse = {
  model: 'claude-sonnet-4-5-20250929',
  content: [{ type: 'text', text: 'Done ✓ — {"status":"complete","summary":"ok"}' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 1200, output_tokens: 300, cache_creation_input_tokens: 1000, cache_read_input_tokens: 5000 },
};
const toolReply: CassetteResponse = {
  content: [
    { type: 'text', text: 'Reading.' },
    { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/math.js', note: 'ünïcode "quoted" {braces}' } },
    { type: 'tool_use', id: 'toolu_2', name: 'list_files', input: {} },
  ],
  stop_reason: 'tool_use',
  usage: { input_tokens: 50, output_tokens: 40, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
};
const thinkingReply: CassetteResponse = {
  content: [
    { type: 'thinking', thinking: 'The user wants a sum function.', signature: 'sig-123' },
    { type: 'text', text: 'Here it is.' },
  ],
  stop_reason: 'max_tokens',
  usage: { input_tokens: 7, output_tokens: 100 },
};
const lines: CassetteLine[] = [
  { line: 1, task: 'T1', phase: 'stream', response: toolReply },
  { line: 2, task: 'T1', phase: 'stream', response: textReply },
  { line: 6, task: 'T1', phase: 'stream', response: thinkingReply },
  { line: 3, task: 'T1', phase: 'json', response: toolReply },
  { line: 4, task: '*', phase: 'faults', response: textReply },
  { line: 5, task: '*', phase: 'faults', response: textReply },
  { line: 7, task: '*', phase: 'held', response: textReply },
  { line: 8, task: 'T1', phase: 'again', response: thinkingReply },
];

let fake: FakeAnthropic;
let client: Anthropic;

beforeAll(async () => {
  fake = await startFakeAnthropic({ cassette: lines });
  client = new Anthropic({ apiKey: 'test-key', baseURL: fake.url, maxRetries: 0, logLevel: 'off' });
});

afterAll(() => fake.close());

const params = { model: MODEL, max_tokens: 100, messages: [{ role: 'user' as const, content: 'hi' }] };
const headers = (task: string, phase: string) => ({ headers: { 'x-dex-task': task, 'x-dex-phase': phase } });

describe('fake Anthropic server', () => {
  it('streams events the SDK accumulates into exactly the recorded response', async () => {
    for (const recorded of [toolReply, textReply, thinkingReply]) {
      const message = await client.messages.stream(params, headers('T1', 'stream')).finalMessage();
      expect(JSON.parse(JSON.stringify(message.content))).toEqual(recorded.content);
      expect(message.stop_reason).toBe(recorded.stop_reason);
      expect(message.usage).toEqual(recorded.usage);
    }
    const request = fake.requests.at(-1)!;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/messages', body: { ...params, stream: true } });
    expect(request.headers['x-dex-task']).toBe('T1');
  });

  it('answers non-streaming requests with the recorded response as JSON', async () => {
    const message = await client.messages.create(params, headers('T1', 'json'));
    expect(message.content).toEqual(toolReply.content);
    expect(message.usage).toEqual(toolReply.usage);
    expect(message.model).toBe(MODEL);
  });

  it('answers 400 naming the task and phase when no line is left', async () => {
    const err = await client.messages.create(params, headers('T1', 'json')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as BadRequestError).apiMessage).toBe('fake Anthropic: no unused cassette line for task "T1" phase "json"');
  });

  it('answers a call asked again with the line it got before, and any other request with the next line', async () => {
    const call = (key: string) => ({ headers: { ...headers('T1', 'again').headers, 'x-dex-call': key } });
    const first = await client.messages.create(params, call('T1/implement/1/model/1'));
    const again = await client.messages.create(params, call('T1/implement/1/model/1'));
    expect(first.content).toEqual(thinkingReply.content);
    expect(again.content).toEqual(first.content);
    const other = await client.messages.create(params, call('T1/implement/1/model/2')).catch((e: unknown) => e);
    expect((other as BadRequestError).apiMessage).toBe('fake Anthropic: no unused cassette line for task "T1" phase "again"');
  });

  it('serves faults first in, first out, each once, to the task they match', async () => {
    fake.injectFault({ status: 500, match: { task: 'other' } });
    fake.injectFault({ status: 429, headers: { 'retry-after': '7' } });
    const limited = await client.messages.create(params, headers('T9', 'faults')).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).headers.get('retry-after')).toBe('7');
    expect((limited as RateLimitError).type).toBe('rate_limit_error');

    await expect(client.messages.create(params, headers('T9', 'faults'))).resolves.toMatchObject({ stop_reason: 'end_turn' });
    const failed = await client.messages.create(params, headers('other', 'faults')).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(InternalServerError);
    await expect(client.messages.create(params, headers('other', 'faults'))).resolves.toMatchObject({ stop_reason: 'end_turn' });
  });

  it('holds a matching request unanswered until released, then answers it from the cassette', async () => {
    const held = fake.holdRequest({ task: 'H1' });
    let settled = false;
    const reply = client.messages.create(params, headers('H1', 'held')).finally(() => (settled = true));
    await held.reached;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(settled).toBe(false);
    held.release();
    await expect(reply).resolves.toMatchObject({ stop_reason: 'end_turn' });
  });

  it('stalls: starts a stream, then sends nothing until the client closes the connection', async () => {
    fake.injectFault({ kind: 'stall' });
    const controller = new AbortController();
    const stream = await client.messages.create({ ...params, stream: true }, { ...headers('T9', 'faults'), signal: controller.signal });
    const events = stream[Symbol.asyncIterator]();
    expect((await events.next()).value).toMatchObject({ type: 'message_start', message: { model: MODEL } });
    const next = events.next();
    // Proving that nothing comes takes a wait; a fraction of a second stands for "never".
    const quiet = await Promise.race([next.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 300))]);
    expect(quiet).toBe(true);
    controller.abort();
    await expect(next).resolves.toMatchObject({ done: true });
  });
});

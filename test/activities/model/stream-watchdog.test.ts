import Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamWatchdog, type StreamLimits, type StreamProgress } from '../../../activities/model/stream-watchdog';
import { FAILURE } from '../../../core/run/failure-types';
import { MODEL } from '../../support/model/call-model-fixture';
import { completionTurn } from '../../support/model/cassette-builder';
import { startFakeAnthropic, type FakeAnthropic } from '../../support/model/fake-anthropic-server';

const TASK = 'T-watch';
// Short limits, so that a stall shows in a fraction of a second.
const LIMITS: StreamLimits = { firstByteMs: 600, idleMs: 300 };

let fake: FakeAnthropic;
let client: Anthropic;

beforeAll(async () => {
  fake = await startFakeAnthropic({ cassette: [completionTurn(TASK, { status: 'complete', summary: 'ok' })] });
  client = new Anthropic({ apiKey: 'test-key', baseURL: fake.url, maxRetries: 0, logLevel: 'off' });
});

afterAll(() => fake.close());

/** One streamed request watched as `streamedReply` watches it: what it returned or threw, and what it heartbeat. */
async function watchedCall(): Promise<{ outcome: unknown; watchdog: StreamWatchdog; beats: StreamProgress[]; ms: number }> {
  const beats: StreamProgress[] = [];
  const watchdog = new StreamWatchdog((progress) => beats.push(progress), LIMITS);
  const started = Date.now();
  try {
    const stream = client.messages.stream(
      { model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'x-dex-task': TASK, 'x-dex-phase': 'implement' }, signal: watchdog.signal, middleware: [watchdog.middleware] },
    );
    const outcome = await stream.finalMessage().catch((err: unknown) => err);
    return { outcome, watchdog, beats, ms: Date.now() - started };
  } finally {
    watchdog.stop();
  }
}

describe('StreamWatchdog', () => {
  it('gives up a stream that goes silent after it began, with a retryable ModelStreamStalled', async () => {
    fake.injectFault({ kind: 'stall' });
    const { outcome, watchdog, beats, ms } = await watchedCall();
    expect(outcome).toBeInstanceOf(Error);
    expect(watchdog.signal.aborted).toBe(true);
    expect(watchdog.stalled).toBeInstanceOf(ApplicationFailure);
    expect(watchdog.stalled).toMatchObject({ type: FAILURE.ModelStreamStalled, nonRetryable: false });
    expect(watchdog.stalled?.message).toMatch(/^Anthropic API call given up: the reply stream went silent for 0.3 s \(\d+ bytes received\)$/);
    // Given up by the idle limit, not the (longer) first-byte limit.
    expect(ms).toBeGreaterThanOrEqual(LIMITS.idleMs);
    expect(ms).toBeLessThan(LIMITS.firstByteMs + 500);
    expect(beats.at(-1)?.streamBytes).toBeGreaterThan(0);
  });

  it('gives up a request that gets no byte of a reply after the first-byte limit', async () => {
    fake.injectFault({ kind: 'timeout' });
    const { watchdog, beats, ms } = await watchedCall();
    expect(watchdog.stalled?.message).toBe('Anthropic API call given up: no byte of the reply arrived for 0.6 s (0 bytes received)');
    expect(ms).toBeGreaterThanOrEqual(LIMITS.firstByteMs);
    expect(beats.every((b) => b.streamBytes === 0)).toBe(true);
  });

  it('lets a stream that flows finish, heartbeating on its bytes', async () => {
    const { outcome, watchdog, beats } = await watchedCall();
    expect(outcome).toMatchObject({ stop_reason: 'end_turn' });
    expect(watchdog.stalled).toBeUndefined();
    expect(watchdog.signal.aborted).toBe(false);
    // The first beat is the request's start; the bytes that arrived come after it.
    expect(beats[0]).toEqual({ streamBytes: 0 });
    expect(beats.length).toBeGreaterThan(1);
    expect(beats.at(-1)?.streamBytes).toBeGreaterThan(0);
  });
});

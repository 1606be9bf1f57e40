/**
 * The idle watchdog of a streamed model call. It sees every chunk of the response as it arrives
 * (a per-request SDK middleware), heartbeats on them, and gives the call up with a retryable
 * `ModelStreamStalled` when the stream goes silent for too long, so a stalled stream is asked
 * again within seconds instead of at the HTTP client's five-minute timeout.
 */
import type { Middleware } from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../core/run/failure-types';

/**
 * How long a reply may go without a byte once its stream has begun. Streaming, the API sends an
 * event every few tokens, so 20 s of silence is a dead stream, and with llmPolicy's 2 s first
 * retry interval the call is asked again about 22 s after it went quiet (docs/performance.md).
 */
const STREAM_IDLE_MS = 20_000;

/**
 * How long a request may wait for the first byte of its reply. The API starts its stream once
 * it has read the prompt, which for a long transcript not cached yet takes longer than any gap
 * between events; a request that never gets an answer is still retried in under a minute.
 */
const STREAM_FIRST_BYTE_MS = 45_000;

/** Arriving bytes heartbeat at most this often: progress, reported without flooding the SDK. */
const BYTES_HEARTBEAT_MS = 1_000;

/**
 * While no byte arrives but the silence is within its limit, the call heartbeats this often (a
 * quarter of llmPolicy's 4 s heartbeat timeout): the worker lives and waits within its limit. The
 * watchdog decides that a stream stalled; the heartbeat timeout only notices a dead worker.
 */
const WAITING_HEARTBEAT_MS = 1_000;

/** How often the watchdog looks at how long the stream has been silent. */
const CHECK_MS = 250;

/** How long a streamed reply may stay silent: before its first byte, and between bytes after it. */
export interface StreamLimits {
  /** @default STREAM_FIRST_BYTE_MS */
  firstByteMs: number;
  /** @default STREAM_IDLE_MS */
  idleMs: number;
}

/** What a stream heartbeats with: how many bytes of the reply have arrived. */
export interface StreamProgress {
  streamBytes: number;
}

/** Watches one streamed request from its construction until `stop()`. */
export class StreamWatchdog {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private lastLifeAt = Date.now();
  private lastBeatAt = 0;
  private bytes = 0;
  private stopped = false;
  private stall: ApplicationFailure | undefined;

  constructor(
    private readonly heartbeat: (progress: StreamProgress) => void,
    private readonly limits: StreamLimits = { firstByteMs: STREAM_FIRST_BYTE_MS, idleMs: STREAM_IDLE_MS },
  ) {
    this.timer = setInterval(() => this.check(), CHECK_MS);
    this.beat(this.lastLifeAt);
  }

  /** Aborted when the stream stalls; the request must be made with it. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The retryable failure to raise once the watchdog gave the stream up. */
  get stalled(): ApplicationFailure | undefined {
    return this.stall;
  }

  /** The request's middleware: headers and each chunk of the body count as signs of life. */
  readonly middleware: Middleware = async (request, next) => {
    const response = await next(request);
    this.sawLife(0);
    if (!response.body) return response;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: (chunk, out) => {
          this.sawLife(chunk.byteLength);
          out.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };

  /** Ends the watch (the reply is complete, or the call failed otherwise). */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  private sawLife(bytes: number): void {
    if (this.stopped) return;
    const now = Date.now();
    const firstByte = this.bytes === 0 && bytes > 0;
    this.lastLifeAt = now;
    this.bytes += bytes;
    // The first byte says the model has read the prompt: reported at once, the rest throttled.
    if (firstByte || now - this.lastBeatAt >= BYTES_HEARTBEAT_MS) this.beat(now);
  }

  private check(): void {
    const now = Date.now();
    const [limit, what] = this.bytes === 0 ? [this.limits.firstByteMs, 'no byte of the reply arrived'] : [this.limits.idleMs, 'the reply stream went silent'];
    if (now - this.lastLifeAt > limit) {
      this.stall = ApplicationFailure.create({
        type: FAILURE.ModelStreamStalled,
        message: `Anthropic API call given up: ${what} for ${limit / 1000} s (${this.bytes} bytes received)`,
        nonRetryable: false,
      });
      this.stop();
      this.controller.abort(this.stall);
      return;
    }
    if (now - this.lastBeatAt >= WAITING_HEARTBEAT_MS) this.beat(now);
  }

  private beat(now: number): void {
    this.lastBeatAt = now;
    this.heartbeat({ streamBytes: this.bytes });
  }
}

/**
 * What the model activities (`callModel`, `callLayerModel`, and through it `answerPrompt`)
 * share: a model reply, read from a replay cassette or streamed live from the Anthropic API,
 * and its usage in dex's terms.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { Context } from '@temporalio/activity';
import type { CassetteError, CassetteResponse, CassetteUsage } from '../../core/parsing/cassette';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import { costOf, priceOf } from '../../core/run/pricing';
import type { LlmSpec, TokenUsage } from '../../core/run/run-types';
import type { ActivityDeps } from '../deps';
import { recordedError, recordedReply } from './cassette-recorder';
import { cassetteReply, type CassetteCall, type CassetteFiles } from './cassette-replay';
import { createRedactor, redactDeep } from '../../core/safety/redaction';
import { classifyModelError, retriedErrorLine } from './model-errors';
import { StreamWatchdog } from './stream-watchdog';
import type { DexStore } from '../../store/dex-store';

/** One model call: where its reply comes from and who it is for. */
interface ModelRequest extends CassetteCall {
  llm: LlmSpec;
  /** The Messages API request body, sent when the model is called live. */
  params: Anthropic.MessageStreamParams;
  /** The `anthropic-beta` header sent with it live (a Claude Code session's requests name the betas their bodies use). */
  betas?: string;
}

/** Fails the call for good (UnknownModel) when `model` has no price: its cost could not be counted. */
export function requirePrice(model: string): void {
  try {
    priceOf(model);
  } catch (err) {
    throw nonRetryable(FAILURE.UnknownModel, (err as Error).message);
  }
}

/**
 * The reply to `request`: the next unused matching cassette line, or the live model's streamed
 * answer; with `record:FILE`, the live answer appended to FILE (or the one FILE holds for the call).
 */
export function modelReply(deps: ActivityDeps, cassettes: CassetteFiles, request: ModelRequest): Promise<CassetteResponse> {
  const { llm } = request;
  if (llm.kind === 'replay') return cassetteReply(deps.store, cassettes, llm.path, request);
  if (llm.kind === 'record') {
    const who = { call: request.callKey, task: request.task, phase: request.phase };
    // What a cassette records passes the redaction step like everything dex writes (docs/security.md#redaction).
    const safe = <T>(value: T) => redactDeep(value, redactorOf(deps));
    const retried = (error: CassetteError) => recordedError(llm.path, who, safe(error));
    return recordedReply(llm.path, who, async () => safe(await streamedReply(deps, { kind: 'anthropic' }, request, retried)));
  }
  return streamedReply(deps, llm, request);
}

/** What a stored reply cost: its usage in dex's terms, priced at the model asked for, and the model that answered. */
interface ReplyAccount {
  usage: TokenUsage;
  costUsd: number;
  model: string;
}

/**
 * Stores `content` (the reply, made safe to send back) as message `seq` of `transcriptId` with
 * its accounting row, in one transaction, before the activity reports: every model activity
 * (`callModel`, `callLayerModel`, the forced tool calls) keeps its answers this way, so a retry
 * finds them instead of paying again.
 */
export async function storeReply(
  store: DexStore,
  reply: CassetteResponse,
  call: { transcriptId: string; seq: number; content: unknown[]; callKey: string; taskId: string; phase: string; model: string; started: number; stopReason: string },
): Promise<ReplyAccount> {
  const usage = tokenUsage(reply.usage);
  const costUsd = costOf(call.model, usage);
  const model = reply.model ?? call.model;
  const { info } = Context.current();
  await store.recordModelReply(call.transcriptId, call.seq, call.content, {
    callKey: call.callKey,
    // An activity started outside a workflow has no workflow id; its own id stands in.
    workflowId: info.workflowExecution?.workflowId ?? `activity:${info.activityId}`,
    taskId: call.taskId,
    phase: call.phase,
    model,
    ...usage,
    costUsd,
    durationMs: Date.now() - call.started,
    stopReason: reply.stop_reason ?? call.stopReason,
  });
  return { usage, costUsd, model };
}

/** The token counts of an API (or recorded) usage object. */
export function tokenUsage(usage: CassetteUsage): TokenUsage {
  return {
    input: usage.input_tokens,
    output: usage.output_tokens,
    cacheRead: usage.cache_read_input_tokens ?? 0,
    cacheWrite: usage.cache_creation_input_tokens ?? 0,
  };
}

/** The live model's answer to `request`; `retried` hears of each API error this attempt fails with that is retried (the recorder's error line). */
async function streamedReply(
  deps: ActivityDeps,
  llm: Extract<LlmSpec, { kind: 'anthropic' }>,
  request: ModelRequest,
  retried?: (error: CassetteError) => Promise<void>,
): Promise<CassetteResponse> {
  const ctx = Context.current();
  const client = deps.anthropicClient({ baseUrl: llm.baseUrl });
  // Heartbeats follow the bytes of the reply; a stream that goes silent is given up and retried.
  const watchdog = new StreamWatchdog((progress) => ctx.heartbeat(progress));
  try {
    // The model gets the redacted text too: a secret in a file the prompt quotes never leaves the host.
    const stream = client.messages.stream(redactDeep(request.params, redactorOf(deps)), {
      headers: { 'x-dex-task': request.task, 'x-dex-phase': request.phase, 'x-dex-call': request.callKey, ...(request.betas ? { 'anthropic-beta': request.betas } : {}) },
      signal: AbortSignal.any([ctx.cancellationSignal, watchdog.signal]),
      middleware: [watchdog.middleware],
    });
    return (await stream.finalMessage()) as unknown as CassetteResponse;
  } catch (err) {
    if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
    if (watchdog.stalled) throw watchdog.stalled;
    const failure = classifyModelError(err);
    const line = retried && retriedErrorLine(err, failure);
    if (line) await retried(line);
    throw failure;
  } finally {
    watchdog.stop();
  }
}

/** The worker's redactor, or the shapes of credentials alone where a test's deps have none. */
const shapesOnly = createRedactor();
const redactorOf = (deps: ActivityDeps) => deps.redactor ?? shapesOnly;


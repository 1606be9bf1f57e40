/**
 * The `callLayerModel` activity: a prompt-only model call for layer nodes (no agent system
 * prompt, no tools), answered live or from a replay cassette (contract §5: `task` is the
 * target, `phase` the node). Like `callModel`, the reply and its accounting are stored before
 * the activity reports, so a retry after a crash reuses them instead of paying again.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { CassetteError, matchingLineNumbers, parseCassette, type CassetteResponse } from '../core/cassette';
import { costOf, priceOf } from '../core/pricing';
import type { LlmSpec, TokenUsage } from '../core/types';
import type { ActivityDeps } from './deps';
import { classifyModelError } from './model-errors';
import type { Store } from './sqlite-store';

/** Input of `callLayerModel`: answer the user message at `userSeq` of `transcriptId`. */
export interface LayerModelCallInput {
  transcriptId: string;
  userSeq: number;
  /** Becomes the user message at `userSeq` when it is not stored yet (a repair request). */
  followUpText?: string;
  target: string;
  node: string;
  model: string;
  maxTokens: number;
  llm: LlmSpec;
  cassetteScope: string;
}

/** Output of `callLayerModel`; the reply's text stays in the store. */
export interface LayerModelCallResult {
  usage: TokenUsage;
  costUsd: number;
  model: string;
  reused: boolean;
  /** Sequence number of the stored reply. */
  replySeq: number;
}

/** How often a live call heartbeats while it waits for the model. */
const LIVENESS_HEARTBEAT_MS = 5_000;

/** Builds the layer model activity over the host's dependencies. */
export const createLayerModelActivities = (deps: ActivityDeps) => ({
  /** One prompt-only model call of a layer node. */
  async callLayerModel(input: LayerModelCallInput): Promise<LayerModelCallResult> {
    const { store } = deps;
    const { transcriptId, userSeq } = input;
    const replySeq = userSeq + 1;
    const callKey = `${transcriptId}#${replySeq}`;
    if (input.followUpText && !store.getMessage(transcriptId, userSeq)) {
      store.appendMessage(transcriptId, userSeq, 'user', [{ type: 'text', text: input.followUpText }]);
    }
    const reused = reusedCall(store, callKey, replySeq);
    if (reused) return reused;
    try {
      priceOf(input.model);
    } catch (err) {
      throw ApplicationFailure.create({ type: 'UnknownModel', nonRetryable: true, message: (err as Error).message });
    }
    const messages = store.listMessages(transcriptId, userSeq).map((m) => ({ role: m.role, content: m.content }));
    if (messages.at(-1)?.role !== 'user') {
      throw ApplicationFailure.create({ type: 'TranscriptError', nonRetryable: true, message: `${transcriptId} has no prompt at ${userSeq} to answer` });
    }
    const started = Date.now();
    const reply = input.llm.kind === 'replay' ? cassetteReply(store, input, input.llm.path, callKey) : await liveReply(deps, input, input.llm, messages, callKey);
    const content = reply.content.length ? JSON.parse(JSON.stringify(reply.content)) : [{ type: 'text', text: '' }];
    const usage: TokenUsage = {
      input: reply.usage.input_tokens,
      output: reply.usage.output_tokens,
      cacheRead: reply.usage.cache_read_input_tokens ?? 0,
      cacheWrite: reply.usage.cache_creation_input_tokens ?? 0,
    };
    const costUsd = costOf(input.model, usage);
    const { info } = Context.current();
    store.recordModelReply(transcriptId, replySeq, content, {
      callKey,
      workflowId: info.workflowExecution?.workflowId ?? `activity:${info.activityId}`,
      taskId: input.target,
      phase: input.node,
      model: reply.model ?? input.model,
      ...usage,
      costUsd,
      durationMs: Date.now() - started,
      stopReason: reply.stop_reason ?? 'end_turn',
    });
    // An attempt Temporal gave up on may have stored its reply first; that stored reply is the one that counts.
    return reusedCall(store, callKey, replySeq, false) ?? { usage, costUsd, model: reply.model ?? input.model, reused: false, replySeq };
  },
});

/** The text of a stored reply (its text blocks joined). */
export function replyText(store: Store, transcriptId: string, seq: number): string {
  const message = store.getMessage(transcriptId, seq);
  if (!message || message.role !== 'assistant' || !Array.isArray(message.content)) {
    throw ApplicationFailure.create({ type: 'TranscriptError', nonRetryable: true, message: `${transcriptId}#${seq} is not a stored model reply` });
  }
  return (message.content as { type: string; text?: unknown }[])
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
}

function reusedCall(store: Store, callKey: string, replySeq: number, reused = true): LayerModelCallResult | undefined {
  const r = store.getModelCall(callKey);
  if (!r) return undefined;
  return { usage: { input: r.input, output: r.output, cacheRead: r.cacheRead, cacheWrite: r.cacheWrite }, costUsd: r.costUsd, model: r.model, reused, replySeq };
}

async function liveReply(
  deps: ActivityDeps,
  input: LayerModelCallInput,
  llm: Extract<LlmSpec, { kind: 'anthropic' }>,
  messages: { role: 'user' | 'assistant'; content: unknown }[],
  callKey: string,
): Promise<CassetteResponse> {
  const ctx = Context.current();
  const client = deps.anthropicClient({ baseUrl: llm.baseUrl });
  try {
    const stream = client.messages.stream(
      { model: input.model, max_tokens: input.maxTokens, messages: messages as never },
      { headers: { 'x-dex-task': input.target, 'x-dex-phase': input.node, 'x-dex-call': callKey }, signal: ctx.cancellationSignal },
    );
    ctx.heartbeat();
    stream.on('streamEvent', () => ctx.heartbeat());
    // Heartbeat on a timer too: the heartbeat timeout should measure whether this worker lives, not how fast the model starts.
    const alive = setInterval(() => ctx.heartbeat(), LIVENESS_HEARTBEAT_MS);
    try {
      return (await stream.finalMessage()) as unknown as CassetteResponse;
    } finally {
      clearInterval(alive);
    }
  } catch (err) {
    if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
    throw classifyModelError(err);
  }
}

function cassetteReply(store: Store, input: LayerModelCallInput, path: string, callKey: string): CassetteResponse {
  const file = resolve(path);
  let lines;
  try {
    lines = parseCassette(readFileSync(file, 'utf8'), file);
  } catch (err) {
    const message = err instanceof CassetteError ? err.message : `replay cassette ${file} cannot be read: ${(err as Error).message}`;
    throw ApplicationFailure.create({ type: 'CassetteInvalid', nonRetryable: true, message });
  }
  const lineNo = store.claimCassetteLine(input.cassetteScope, file, callKey, matchingLineNumbers(lines, input.target, input.node));
  const line = lines.find((l) => l.line === lineNo);
  if (!line) {
    throw ApplicationFailure.create({
      type: 'CassetteExhausted',
      nonRetryable: true,
      message: `replay cassette ${file} has no unused line for task "${input.target}" phase "${input.node}"`,
    });
  }
  return line.response;
}

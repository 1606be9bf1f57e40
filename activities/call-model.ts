/**
 * The `callModel` activity: one model turn of an agent transcript, answered live by the
 * Anthropic API or from a replay cassette. The reply is stored before the activity reports,
 * so a retry after a crash reuses it instead of paying for the call again.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { SYSTEM_PROMPT } from '../core/agent-system-prompt';
import { AGENT_TOOLS } from '../core/agent-tools';
import { CassetteError, matchingLineNumbers, parseCassette, type CassetteLine } from '../core/cassette';
import { extractCompletion } from '../core/completion';
import { costOf, priceOf } from '../core/pricing';
import type { Completion, FollowUp, LlmSpec, ModelCallInput, ModelCallResult, TokenUsage } from '../core/types';
import type { ActivityDeps } from './deps';
import { classifyModelError } from './model-errors';
import type { ModelCallRecord, Store } from './sqlite-store';

const PREVIEW_CHARS = 200;
const COMPLETION_CHARS = 2_000;
const EPHEMERAL = { type: 'ephemeral' } as const;
const EMPTY_REPLY = '(empty reply)';

/** A model reply, whether streamed live or read from a cassette. */
interface ModelReply {
  content: unknown[];
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens?: number | null;
    cache_creation_input_tokens?: number | null;
  };
  stop_reason?: string | null;
  model?: string;
}

/** A content block as stored in a transcript. */
type Block = { type: string } & Record<string, unknown>;

/** Builds the model activities over the host's dependencies. */
export const createModelActivities = (deps: ActivityDeps) => {
  const cassettes = new CassetteFiles();
  return {
    /** Answers the user message at `userSeq` (built from `followUp` if given); the reply is stored at `userSeq + 1`. */
    async callModel(input: ModelCallInput): Promise<ModelCallResult> {
      const { store } = deps;
      const { transcriptId, userSeq } = input;
      const replySeq = userSeq + 1;
      const callKey = `${transcriptId}#${replySeq}`;

      if (input.followUp && !store.getMessage(transcriptId, userSeq)) {
        store.appendMessage(transcriptId, userSeq, 'user', followUpContent(store, transcriptId, input.followUp));
      }
      const stored = store.getMessage(transcriptId, replySeq);
      if (stored) return reusedReply(store, callKey, stored.role, stored.content);

      try {
        priceOf(input.model);
      } catch (err) {
        throw ApplicationFailure.create({ type: 'UnknownModel', nonRetryable: true, message: (err as Error).message });
      }
      const messages = transcriptUpTo(store, transcriptId, userSeq);
      const started = Date.now();
      const reply =
        input.llm.kind === 'replay'
          ? cassetteReply(store, cassettes, input, input.llm.path, callKey)
          : await liveReply(deps, input, input.llm, messages, callKey);

      // A JSON round trip drops the SDK's non-enumerable helper fields, which the API would refuse.
      const content = JSON.parse(JSON.stringify(reply.content)) as Block[];
      // Claude sometimes ends a turn with no content, and the API refuses an empty assistant
      // message in the history it is sent next turn.
      if (content.length === 0) content.push({ type: 'text', text: EMPTY_REPLY });
      const usage: TokenUsage = {
        input: reply.usage.input_tokens,
        output: reply.usage.output_tokens,
        cacheRead: reply.usage.cache_read_input_tokens ?? 0,
        cacheWrite: reply.usage.cache_creation_input_tokens ?? 0,
      };
      const costUsd = costOf(input.model, usage);
      const model = reply.model ?? input.model;
      const stopReason = reply.stop_reason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
      const { info } = Context.current();
      const record: ModelCallRecord = {
        callKey,
        // An activity started outside a workflow has no workflow id; its own id stands in.
        workflowId: info.workflowExecution?.workflowId ?? `activity:${info.activityId}`,
        taskId: input.taskId,
        phase: input.phase,
        model,
        ...usage,
        costUsd,
        durationMs: Date.now() - started,
        stopReason,
      };
      store.recordModelReply(transcriptId, replySeq, content, record);
      // An attempt Temporal gave up on may still have finished first and stored its reply; the
      // stored reply is the one later turns send back, so it is the one to report.
      const kept = store.getMessage(transcriptId, replySeq);
      if (kept && JSON.stringify(kept.content) !== JSON.stringify(content)) {
        return reusedReply(store, callKey, kept.role, kept.content);
      }
      return summarize(content, { stopReason, usage, costUsd, model, reused: false });
    },
  };
};

/** The user message's content: tool results in the given order, then artifacts, then the note. */
function followUpContent(store: Store, transcriptId: string, followUp: FollowUp): Block[] {
  const blocks: Block[] = [];
  for (const toolUseId of followUp.toolUseIds ?? []) {
    const result = store.getToolResult(transcriptId, toolUseId);
    if (!result) throw transcriptError(`${transcriptId} has no stored result for tool_use ${toolUseId}`);
    blocks.push({ type: 'tool_result', tool_use_id: toolUseId, content: result.content, is_error: result.isError });
  }
  for (const artifactId of followUp.artifactIds ?? []) {
    const artifact = store.getArtifact(artifactId);
    if (!artifact) throw transcriptError(`artifact ${artifactId} is not in the store`);
    if (artifact.content.trim()) blocks.push({ type: 'text', text: artifact.content });
  }
  if (followUp.text?.trim()) blocks.push({ type: 'text', text: followUp.text });
  if (blocks.length === 0) throw transcriptError(`the follow-up for ${transcriptId} is empty`);
  return blocks;
}

/** The messages to send: the transcript up to `userSeq`, which must be the user message to answer. */
function transcriptUpTo(store: Store, transcriptId: string, userSeq: number): Anthropic.MessageParam[] {
  const messages = store.listMessages(transcriptId, userSeq);
  const last = messages.at(-1);
  if (!last || last.seq !== userSeq || last.role !== 'user') {
    throw transcriptError(`${transcriptId} has no user message at ${userSeq} to answer`);
  }
  return messages.map((m) => ({ role: m.role, content: m.content }) as Anthropic.MessageParam);
}

function reusedReply(store: Store, callKey: string, role: string, content: unknown): ModelCallResult {
  const record = store.getModelCall(callKey);
  if (role !== 'assistant' || !record || !Array.isArray(content)) {
    throw transcriptError(`message ${callKey} is not a stored model reply`);
  }
  const { input, output, cacheRead, cacheWrite } = record;
  return summarize(content as Block[], {
    stopReason: record.stopReason ?? null,
    usage: { input, output, cacheRead, cacheWrite },
    costUsd: record.costUsd,
    model: record.model,
    reused: true,
  });
}

/** The small result that goes into workflow history: no full text, no tool inputs. */
/** How often a live call heartbeats while it waits for the model. */
const LIVENESS_HEARTBEAT_MS = 5_000;

function summarize(content: Block[], rest: Omit<ModelCallResult, 'toolUses' | 'completion' | 'textPreview'>): ModelCallResult {
  const text = content
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
  const toolUses = content.filter((b) => b.type === 'tool_use').map((b) => ({ id: String(b.id), name: String(b.name) }));
  const completion = toolUses.length === 0 ? clipped(extractCompletion(text)) : null;
  return { ...rest, toolUses, completion, textPreview: text.slice(0, PREVIEW_CHARS) };
}

function clipped(completion: Completion | null): Completion | null {
  if (!completion) return null;
  return completion.status === 'complete'
    ? { status: 'complete', summary: completion.summary.slice(0, COMPLETION_CHARS) }
    : { status: completion.status, reason: completion.reason.slice(0, COMPLETION_CHARS) };
}

async function liveReply(
  deps: ActivityDeps,
  input: ModelCallInput,
  llm: Extract<LlmSpec, { kind: 'anthropic' }>,
  messages: Anthropic.MessageParam[],
  callKey: string,
): Promise<ModelReply> {
  const ctx = Context.current();
  const client = deps.anthropicClient({ baseUrl: llm.baseUrl });
  try {
    const stream = client.messages.stream(
      {
        model: input.model,
        max_tokens: input.maxTokens,
        system: [{ type: 'text', text: SYSTEM_PROMPT, cache_control: EPHEMERAL }],
        tools: AGENT_TOOLS.map((tool, i) => (i === AGENT_TOOLS.length - 1 ? { ...tool, cache_control: EPHEMERAL } : tool)),
        messages: withConversationBreakpoint(messages),
      },
      {
        headers: { 'x-dex-task': input.taskId, 'x-dex-phase': input.phase, 'x-dex-call': callKey },
        signal: ctx.cancellationSignal,
      },
    );
    ctx.heartbeat();
    stream.on('connect', () => ctx.heartbeat());
    stream.on('streamEvent', () => ctx.heartbeat());
    // A long prompt can take a while to its first token: heartbeat on a timer too, so the
    // heartbeat timeout measures whether this worker lives, not how fast the model starts.
    const alive = setInterval(() => ctx.heartbeat(), LIVENESS_HEARTBEAT_MS);
    try {
      return await stream.finalMessage();
    } finally {
      clearInterval(alive);
    }
  } catch (err) {
    if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
    throw classifyModelError(err);
  }
}

/**
 * Marks the last message as a cache breakpoint too: each turn re-sends the whole transcript,
 * so caching it up to here makes the next turn read it at a tenth of the input price.
 */
function withConversationBreakpoint(messages: Anthropic.MessageParam[]): Anthropic.MessageParam[] {
  const last = messages.at(-1);
  if (!last) return messages;
  const blocks: Anthropic.ContentBlockParam[] =
    typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : [...last.content];
  const tail = blocks.at(-1);
  if (!tail) return messages;
  blocks[blocks.length - 1] = { ...tail, cache_control: EPHEMERAL } as Anthropic.ContentBlockParam;
  return [...messages.slice(0, -1), { ...last, content: blocks } as Anthropic.MessageParam];
}

function cassetteReply(
  store: Store,
  cassettes: CassetteFiles,
  input: ModelCallInput,
  path: string,
  callKey: string,
): ModelReply {
  const file = resolve(path);
  const lines = cassettes.load(file);
  const candidates = matchingLineNumbers(lines, input.taskId, input.phase);
  const lineNo = store.claimCassetteLine(input.cassetteScope, file, callKey, candidates);
  if (lineNo === undefined) {
    throw ApplicationFailure.create({
      type: 'CassetteExhausted',
      nonRetryable: true,
      message: `replay cassette ${file} has no unused line for task "${input.taskId}" phase "${input.phase}"`,
    });
  }
  const line = lines.find((l) => l.line === lineNo);
  if (!line) {
    throw cassetteInvalid(`${file}:${lineNo}: the line claimed by ${callKey} is gone; the cassette changed during the run`);
  }
  Context.current().heartbeat();
  return line.response as ModelReply;
}

/** Parsed cassettes, re-read when a file's modification time or size changes. */
class CassetteFiles {
  private readonly parsed = new Map<string, { mtimeMs: number; size: number; lines: CassetteLine[] }>();

  load(file: string): CassetteLine[] {
    try {
      const { mtimeMs, size } = statSync(file);
      const cached = this.parsed.get(file);
      if (cached && cached.mtimeMs === mtimeMs && cached.size === size) return cached.lines;
      const lines = parseCassette(readFileSync(file, 'utf8'), file);
      this.parsed.set(file, { mtimeMs, size, lines });
      return lines;
    } catch (err) {
      if (err instanceof CassetteError) throw cassetteInvalid(err.message);
      throw cassetteInvalid(`replay cassette ${file} cannot be read: ${(err as Error).message}`);
    }
  }
}

function cassetteInvalid(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'CassetteInvalid', nonRetryable: true, message });
}

function transcriptError(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'TranscriptError', nonRetryable: true, message });
}

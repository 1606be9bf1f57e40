/**
 * The `callModel` activity: one model turn of an agent transcript, answered live by the
 * Anthropic API or from a replay cassette. The reply is stored before the activity reports,
 * so a retry after a crash reuses it instead of paying for the call again.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ApplicationFailure } from '@temporalio/common';
import { SYSTEM_PROMPT } from '../../core/task/agent-system-prompt';
import { AGENT_TOOLS, describeToolCall } from '../../core/task/agent-tools';
import { extractCompletion } from '../../core/task/completion';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import { modelCallKey } from '../../core/run/ids';
import { fits, worstCaseOf, type Allowance, type Reserve } from '../../core/run/budget-reservation';
import type { LlmSpec, TokenUsage } from '../../core/run/run-types';
import type { Completion } from '../../core/task/task-types';
import type { ActivityDeps } from '../deps';
import { CassetteFiles } from './cassette-replay';
import { modelReply, requirePrice, storeReply } from './model-reply';
import type { DexStore } from '../../store/dex-store';
import { inModelTurnSpan, onModelSpan } from '../../tracing/activity-spans';
import { ensureUserMessage, transcriptUpTo, usageOf, type Block } from './model-turn';
import { runReadsOf, type ReadsPlace } from './reads-in-turn';
import { goOnReading, type ReadingChain } from './reading-turns';

const PREVIEW_CHARS = 200;
const COMPLETION_CHARS = 2_000;
const EPHEMERAL = { type: 'ephemeral' } as const;
const EMPTY_REPLY = '(empty reply)';


/** Follow-up content that becomes the next user message of a transcript. */
export interface FollowUp {
  /** Tool results to send back, by tool_use id, in this order. */
  toolUseIds?: string[];
  /** Stored artifacts (e.g. a verify report) whose text is sent to the model. */
  artifactIds?: string[];
  /** A short note (a person's approval note, a reminder of the completion format). */
  text?: string;
}

/** Input of the `callModel` activity. */
export interface ModelCallInput {
  transcriptId: string;
  /** Sequence number of the user message this call answers; the reply gets `userSeq + 1`. */
  userSeq: number;
  /** Becomes the user message at `userSeq`; absent when it is already stored (the first prompt). */
  followUp?: FollowUp;
  taskId: string;
  phase: string;
  model: string;
  maxTokens: number;
  llm: LlmSpec;
  /** Scope of replay-cassette lines: calls in one scope never take the same line twice. */
  cassetteScope: string;
  /** What the call may spend at most; a call whose worst case does not fit is not made (docs/roadmaps.md). */
  allowance?: Allowance;
  /** Extended thinking: the model may think for up to this many tokens first, on top of `maxTokens` (docs/roadmaps.md#models-and-thinking). */
  thinkingBudget?: number;
  /** Sampling temperature (an attempt of a best-of-N task, docs/attempts.md); absent, the API's default. */
  temperature?: number;
  /** Where a reply that only reads (read_file, list_files) has its reads run by this call (activities/model/reads-in-turn.ts); absent, never. */
  reads?: ReadsPlace;
  /** How far this call may go on answering after a reply whose reads it ran (activities/model/reading-turns.ts); absent, one turn. */
  chain?: ReadingChain;
}

/** The answer when the call's worst case does not fit its allowance: no request was made. */
export interface ModelCallDeferred {
  deferred: true;
  /** The call's worst case, to reserve before asking again. */
  worst: Reserve;
}

/** Output of the `callModel` activity. */
export interface ModelCallResult {
  stopReason: string | null;
  /** The reply's tool calls; `step` reads as one short line (`edit_file src/math.js`), for summaries and progress. */
  toolUses: { id: string; name: string; step?: string }[];
  completion: Completion | null;
  /** The first characters of the reply's text, for progress display. */
  textPreview: string;
  usage: TokenUsage;
  costUsd: number;
  model: string;
  /** True when the reply was already stored by an earlier attempt and no request was made. */
  reused: boolean;
  /** True when this call ran the reply's tool calls itself (all quick reads) and stored their results. */
  toolsRun?: boolean;
  /**
   * How many model turns the call made, when more than one: the turns before the last only read,
   * and their reads are stored. The other fields describe the last reply; `usage` and `costUsd` are all the turns'.
   */
  turns?: number;
}

/** Builds the model activities over the host's dependencies. */
export const createModelActivities = (deps: ActivityDeps) => {
  const cassettes = new CassetteFiles();
  return {
    /**
     * Answers the user message at `userSeq` (built from `followUp` if given); the reply is stored at `userSeq + 1`.
     * A reply that only reads may be followed by more turns within the call (`chain`).
     */
    async callModel(input: ModelCallInput): Promise<ModelCallResult | ModelCallDeferred> {
      // The turns after the first each have a span of their own within the call's (tracing/activity-spans.ts).
      const turn = (next: ModelCallInput) => (next.userSeq === input.userSeq ? oneTurn(next) : inModelTurnSpan(next.userSeq + 1, () => oneTurn(next)));
      return goOnReading<ModelCallInput, ModelCallResult, ModelCallDeferred>(input, turn);
    },
  };

  /** One model turn: the reply to the user message at `userSeq`, and its reads when it only reads. */
  async function oneTurn(input: ModelCallInput): Promise<ModelCallResult | ModelCallDeferred> {
    const { store } = deps;
    const { transcriptId, userSeq } = input;
    const replySeq = userSeq + 1;
    const callKey = modelCallKey(transcriptId, replySeq);

    const followUp = input.followUp;
    if (followUp) await ensureUserMessage(store, transcriptId, userSeq, () => followUpContent(store, transcriptId, followUp));
    // Reads the reply asked for run here, after it is stored (activities/model/reads-in-turn.ts).
    const withReads = async (result: ModelCallResult): Promise<ModelCallResult> =>
      (await runReadsOf(deps, input.reads, { transcriptId, seq: replySeq, toolUses: result.toolUses })) ? { ...result, toolsRun: true } : result;
    const stored = await store.getMessage(transcriptId, replySeq);
    if (stored) return withReads(onModelSpan(await reusedReply(store, callKey, stored.role, stored.content)));

    requirePrice(input.model);
    const messages = await transcriptUpTo(store, transcriptId, userSeq);
    const thinking = input.thinkingBudget ? { thinking: { type: 'enabled' as const, budget_tokens: input.thinkingBudget } } : {};
    // The API counts thinking within max_tokens: the answer keeps its own `maxTokens` on top.
    const maxTokens = input.maxTokens + (input.thinkingBudget ?? 0);
    const params = {
      model: input.model,
      max_tokens: maxTokens,
      ...thinking,
      ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
      system: [{ type: 'text' as const, text: SYSTEM_PROMPT, cache_control: EPHEMERAL }],
      tools: AGENT_TOOLS.map((tool, i) => (i === AGENT_TOOLS.length - 1 ? { ...tool, cache_control: EPHEMERAL } : tool)),
      messages: withConversationBreakpoint(messages),
    };
    if (input.allowance) {
      const worst = worstCaseOf(input.model, JSON.stringify(params).length, maxTokens);
      if (!fits(worst, input.allowance)) return { deferred: true, worst };
    }
    const started = Date.now();
    const reply = await modelReply(deps, cassettes, { llm: input.llm, cassetteScope: input.cassetteScope, task: input.taskId, phase: input.phase, callKey, params });

    // A JSON round trip drops the SDK's non-enumerable helper fields, which the API would refuse.
    const content = JSON.parse(JSON.stringify(reply.content)) as Block[];
    // Claude sometimes ends a turn with no content, and the API refuses an empty assistant
    // message in the history it is sent next turn.
    if (content.length === 0) content.push({ type: 'text', text: EMPTY_REPLY });
    const stopReason = reply.stop_reason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
    const { usage, costUsd, model } = await storeReply(store, reply, { transcriptId, seq: replySeq, content, callKey, taskId: input.taskId, phase: input.phase, model: input.model, started, stopReason });
    // An attempt Temporal gave up on may still have finished first and stored its reply; the
    // stored reply is the one later turns send back, so it is the one to report.
    const kept = await store.getMessage(transcriptId, replySeq);
    if (kept && JSON.stringify(kept.content) !== JSON.stringify(content)) {
      return withReads(onModelSpan(await reusedReply(store, callKey, kept.role, kept.content)));
    }
    return withReads(onModelSpan(summarize(content, { stopReason, usage, costUsd, model, reused: false })));
  }
};

/** The user message's content: tool results in the given order, then artifacts, then the note. */
async function followUpContent(store: DexStore, transcriptId: string, followUp: FollowUp): Promise<Block[]> {
  const blocks: Block[] = [];
  for (const toolUseId of followUp.toolUseIds ?? []) {
    const result = await store.getToolResult(transcriptId, toolUseId);
    if (!result) throw transcriptError(`${transcriptId} has no stored result for tool_use ${toolUseId}`);
    blocks.push({ type: 'tool_result', tool_use_id: toolUseId, content: result.content, is_error: result.isError });
  }
  for (const artifactId of followUp.artifactIds ?? []) {
    const artifact = await store.getArtifact(artifactId);
    if (!artifact) throw transcriptError(`artifact ${artifactId} is not in the store`);
    if (artifact.content.trim()) blocks.push({ type: 'text', text: artifact.content });
  }
  if (followUp.text?.trim()) blocks.push({ type: 'text', text: followUp.text });
  if (blocks.length === 0) throw transcriptError(`the follow-up for ${transcriptId} is empty`);
  return blocks;
}

async function reusedReply(store: DexStore, callKey: string, role: string, content: unknown): Promise<ModelCallResult> {
  const record = await store.getModelCall(callKey);
  if (role !== 'assistant' || !record || !Array.isArray(content)) {
    throw transcriptError(`message ${callKey} is not a stored model reply`);
  }
  return summarize(content as Block[], {
    stopReason: record.stopReason ?? null,
    usage: usageOf(record),
    costUsd: record.costUsd,
    model: record.model,
    reused: true,
  });
}

/** The small result that goes into workflow history: no full text, no tool inputs. */
function summarize(content: Block[], rest: Omit<ModelCallResult, 'toolUses' | 'completion' | 'textPreview'>): ModelCallResult {
  const text = content
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
  const toolUses = content
    .filter((b) => b.type === 'tool_use')
    .map((b) => ({ id: String(b.id), name: String(b.name), step: describeToolCall(String(b.name), b.input) }));
  const completion = toolUses.length === 0 ? clipped(extractCompletion(text)) : null;
  return { ...rest, toolUses, completion, textPreview: text.slice(0, PREVIEW_CHARS) };
}

function clipped(completion: Completion | null): Completion | null {
  if (!completion) return null;
  return completion.status === 'complete'
    ? { status: 'complete', summary: completion.summary.slice(0, COMPLETION_CHARS) }
    : { status: completion.status, reason: completion.reason.slice(0, COMPLETION_CHARS) };
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

function transcriptError(message: string): ApplicationFailure {
  return nonRetryable(FAILURE.TranscriptError, message);
}

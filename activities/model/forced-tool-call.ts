/**
 * One model call that must answer through one given tool (`tool_choice` forces it), for the
 * small judgements around a task: a gate's verdict (./judge-gate.ts), a task's type
 * (./classify-task.ts). The prompt is stored at seq 0 of its transcript and the reply with its
 * accounting at seq 1 before the activity reports, so a retry reuses them and never pays twice.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import { modelCallKey } from '../../core/run/ids';
import type { LlmSpec, TokenUsage } from '../../core/run/run-types';
import type { ActivityDeps } from '../deps';
import { CassetteFiles } from './cassette-replay';
import { modelReply, requirePrice, storeReply } from './model-reply';
import { onModelSpan } from '../../tracing/activity-spans';

/** A tool the model must answer through. */
export interface AnswerTool {
  name: string;
  description: string;
  input_schema: { type: 'object'; properties: Record<string, unknown>; required: string[] };
}

/** One forced tool call. */
interface ForcedCall {
  transcriptId: string;
  /** Cassette task and phase (and the `x-dex-task`/`x-dex-phase` headers). */
  taskId: string;
  phase: string;
  model: string;
  llm: LlmSpec;
  cassetteScope: string;
  system: string;
  tool: AnswerTool;
  /** Builds the prompt; called only when none is stored yet. */
  prompt: () => Promise<string>;
}

/** The tool call's input, and what the call cost. */
interface ForcedAnswer {
  input: Record<string, unknown>;
  usage: TokenUsage;
  costUsd: number;
}

/** Makes forced tool calls over the host's dependencies. */
export function forcedToolCalls(deps: ActivityDeps): (call: ForcedCall) => Promise<ForcedAnswer> {
  const cassettes = new CassetteFiles();
  return async (call) => {
    const { store } = deps;
    const callKey = modelCallKey(call.transcriptId, 1);
    const stored = await store.getMessage(call.transcriptId, 1);
    const recorded = await store.getModelCall(callKey);
    if (stored && recorded) {
      const usage = { input: recorded.input, output: recorded.output, cacheRead: recorded.cacheRead, cacheWrite: recorded.cacheWrite };
      return onModelSpan({ input: toolInput(stored.content, call.tool.name), usage, costUsd: recorded.costUsd, reused: true }, recorded.model);
    }
    requirePrice(call.model);
    let prompt = await store.getMessage(call.transcriptId, 0);
    if (!prompt) {
      await store.appendMessage(call.transcriptId, 0, 'user', [{ type: 'text', text: await call.prompt() }]);
      // A keyed write: the prompt an earlier attempt stored first is the one sent.
      prompt = (await store.getMessage(call.transcriptId, 0))!;
    }
    const params: Anthropic.MessageStreamParams = {
      model: call.model,
      max_tokens: 1024,
      system: call.system,
      tools: [call.tool],
      tool_choice: { type: 'tool', name: call.tool.name },
      messages: [{ role: 'user', content: prompt.content as Anthropic.ContentBlockParam[] }],
    };
    const started = Date.now();
    const reply = await modelReply(deps, cassettes, { llm: call.llm, cassetteScope: call.cassetteScope, task: call.taskId, phase: call.phase, callKey, params });
    const content = JSON.parse(JSON.stringify(reply.content)) as unknown[];
    const input = toolInput(content, call.tool.name);
    const kept = { transcriptId: call.transcriptId, seq: 1, content, callKey, taskId: call.taskId, phase: call.phase, model: call.model, started, stopReason: 'tool_use' };
    const { usage, costUsd, model } = await storeReply(store, reply, kept);
    return onModelSpan({ input, usage, costUsd }, model);
  };
}

/** The input of the reply's call of tool `name`; a reply without one is the model's error. */
function toolInput(content: unknown, name: string): Record<string, unknown> {
  const blocks = Array.isArray(content) ? (content as { type: string; name?: string; input?: unknown }[]) : [];
  const call = blocks.find((b) => b.type === 'tool_use' && b.name === name);
  if (!call || typeof call.input !== 'object' || call.input === null) {
    throw nonRetryable(FAILURE.ModelBadResponse, `the model did not answer through ${name}`);
  }
  return call.input as Record<string, unknown>;
}

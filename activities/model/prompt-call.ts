/**
 * The `callLayerModel` activity: a prompt-only model call for layer nodes (no agent system
 * prompt, no tools), answered live or from a replay cassette (docs/interfaces.md#the-agent-and-the-model: `task` is the
 * target, `phase` the node), by the model-turn protocol `callModel` follows too (../model/model-turn.ts).
 */
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import { modelCallKey } from '../../core/run/ids';
import type { LayerModelCallInput, LayerModelCallResult } from '../../core/layer/target/target-steps';
import type { ActivityDeps } from '../deps';
import { CassetteFiles } from './cassette-replay';
import { modelReply, requirePrice, storeReply } from './model-reply';
import type { DexStore } from '../../store/dex-store';
import { onModelSpan } from '../../tracing/activity-spans';
import { ensureUserMessage, transcriptUpTo, usageOf } from './model-turn';

/** Builds the layer model activity over the host's dependencies. */
export const createLayerModelActivities = (deps: ActivityDeps) => {
  const cassettes = new CassetteFiles();
  return {
    /** One prompt-only model call of a layer node. */
    async callLayerModel(input: LayerModelCallInput): Promise<LayerModelCallResult> {
      const { store } = deps;
      const { transcriptId, userSeq } = input;
      const replySeq = userSeq + 1;
      const callKey = modelCallKey(transcriptId, replySeq);
      const followUpText = input.followUpText;
      if (followUpText) await ensureUserMessage(store, transcriptId, userSeq, async () => [{ type: 'text', text: followUpText }]);
      const reused = await reusedCall(store, callKey, replySeq);
      if (reused) return onModelSpan(reused);
      requirePrice(input.model);
      const messages = await transcriptUpTo(store, transcriptId, userSeq);
      const started = Date.now();
      const reply = await modelReply(deps, cassettes, {
        llm: input.llm,
        cassetteScope: input.cassetteScope,
        task: input.target,
        phase: input.node,
        callKey,
        params: { model: input.model, max_tokens: input.maxTokens, messages },
      });
      const content = reply.content.length ? JSON.parse(JSON.stringify(reply.content)) : [{ type: 'text', text: '' }];
      const call = { transcriptId, seq: replySeq, content, callKey, taskId: input.target, phase: input.node, model: input.model, started, stopReason: 'end_turn' };
      const { usage, costUsd, model } = await storeReply(store, reply, call);
      // An attempt Temporal gave up on may have stored its reply first; that stored reply is the one that counts.
      return onModelSpan((await reusedCall(store, callKey, replySeq, false)) ?? { usage, costUsd, model, reused: false, replySeq });
    },
  };
};

/** The text of a stored reply (its text blocks joined). */
export async function replyText(store: DexStore, transcriptId: string, seq: number): Promise<string> {
  const message = await store.getMessage(transcriptId, seq);
  if (!message || message.role !== 'assistant' || !Array.isArray(message.content)) {
    throw nonRetryable(FAILURE.TranscriptError, `${transcriptId}#${seq} is not a stored model reply`);
  }
  return (message.content as { type: string; text?: unknown }[])
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
}

async function reusedCall(store: DexStore, callKey: string, replySeq: number, reused = true): Promise<LayerModelCallResult | undefined> {
  const r = await store.getModelCall(callKey);
  if (!r) return undefined;
  return { usage: usageOf(r), costUsd: r.costUsd, model: r.model, reused, replySeq };
}

/**
 * The activities behind layer nodes: targets, fetching, storing insights, writing files and
 * the run record; with the model call (layer-model.ts), the salience ledger (layer-salience.ts)
 * and prompt rendering (layer-prompt.ts). Fetched data and prompts stay in the store; the
 * workflow gets keys and counts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { EMPTY_ANSWER, isEmptyAnswer, parseInsight, unparsedInsight } from '../../core/layer/insight-parse';
import { estimateTokens, formatMessages, trimOldestToFit } from '../../core/layer/layer-context';
import type { ContextRef, LayerRunRecord, LayerSpec, LayerTargets } from '../../core/layer/layer-types';
import { renderPrompt } from '../../core/layer/prompt-template';
import type { FetchLayerInsightsInput, FetchLayerMessagesInput, StoreLayerInsightInput, StoreLayerInsightResult, WriteLayerTextInput } from '../../core/layer/target/target-steps';
import type { ActivityDeps } from '../deps';
import { createLayerChainActivities } from './layer-chain';
import { createLayerModelActivities, replyText } from './layer-model';
import { createLayerPromptActivities } from './layer-prompt';
import { createLayerSalienceActivities } from './layer-salience';

const HOUR_MS = 3_600_000;
/** How much of a printed output goes into the run record. */
const OUTPUT_CHARS = 4_000;

/** Builds the layer activities (the layer model call among them) over the host's dependencies. */
export const createLayerActivities = (deps: ActivityDeps) => {
  const { layers } = deps.store;
  return {
    ...createLayerModelActivities(deps),
    ...createLayerSalienceActivities(deps),
    ...createLayerPromptActivities(deps),
    ...createLayerChainActivities(deps),

    /** The layer's targets: its keys, or the store's topics with enough messages in the lookback. */
    async resolveLayerTargets(input: { targets: LayerTargets; now: number }): Promise<string[]> {
      const t = input.targets;
      if ('keys' in t) return [...new Set(t.keys)];
      const since = new Date(input.now - t.select.lookbackHours * HOUR_MS).toISOString();
      return layers.activeTopics(since, t.select.minMessages, t.select.limit);
    },

    /** Fetches a topic's recent messages, trimmed oldest first to `maxContextTokens`, and keeps their ids under `key`. */
    async fetchLayerMessages(input: FetchLayerMessagesInput): Promise<{ ref: ContextRef; fetched: number; trimmed: number; tokens: number }> {
      const since = new Date(input.now - input.lookbackHours * HOUR_MS).toISOString();
      const fetched = await layers.recentMessages(input.topic, since, new Date(input.now).toISOString(), input.limitPerChannel);
      const fit = trimOldestToFit(fetched, input.maxContextTokens);
      await layers.putContext(input.key, fit.kept.map((m) => m.id));
      // A retry keeps what the first attempt fetched, even if messages arrived since.
      const kept = await layers.messagesByIds((await layers.getContext(input.key)) ?? []);
      const tokens = kept.reduce((sum, m) => sum + estimateTokens(formatMessages([m]) + '\n'), 0);
      return { ref: { key: input.key, count: kept.length }, fetched: fetched.length, trimmed: fetched.length - kept.length, tokens };
    },

    /** Fetches a topic's prior insights by retrieval profile (unparsed ones only when asked for) and keeps their ids under `key`. */
    async fetchLayerInsights(input: FetchLayerInsightsInput): Promise<ContextRef> {
      const found = await layers.topicInsights(input.topic, input.profile, input.maxPerTopic, input.includeUnparsed);
      await layers.putContext(input.key, found.map((i) => i.id));
      return { key: input.key, count: (await layers.getContext(input.key))?.length ?? 0 };
    },

    /** Combines the targets' insights (unparsed ones only when asked for) into one context under `key`. */
    async reduceLayerResults(input: { key: string; insightIds: string[]; includeUnparsed?: boolean }): Promise<ContextRef> {
      const kept = (await layers.insightsByIds(input.insightIds)).filter((i) => input.includeUnparsed || !i.unparsed);
      await layers.putContext(input.key, kept.map((i) => i.id));
      return { key: input.key, count: (await layers.getContext(input.key))?.length ?? 0 };
    },

    /**
     * Stores the insight in a model reply under `id` (once). An empty answer stores nothing,
     * whatever the mode (`empty`: no repair either). `strict`: an answer without the insight
     * JSON stores nothing and says so; `graceful`: its text is kept, flagged unparsed.
     */
    async storeLayerInsight(input: StoreLayerInsightInput): Promise<StoreLayerInsightResult> {
      const text = await replyText(deps.store, input.reply.transcriptId, input.reply.seq);
      if (isEmptyAnswer(text)) return { stored: false, reason: EMPTY_ANSWER, empty: true };
      const parsed = parseInsight(text);
      if (!parsed && input.parse === 'strict') {
        return { stored: false, reason: `the model's answer is not insight JSON with a "content" field: ${JSON.stringify(text.slice(0, 120))}` };
      }
      const insight = parsed ?? unparsedInsight(text);
      const { strengthAdjustment, ...numbers } = insight;
      await layers.putInsight({
        id: input.id,
        topic: input.topic,
        category: input.category,
        ...numbers,
        // A topic that pays no salience (the global one) still gets a unit of strength to rank by.
        strength: (input.salienceSpent > 0 ? input.salienceSpent : 1) * strengthAdjustment,
        layerRunId: input.layerRunId,
        salienceSpent: input.salienceSpent,
        unparsed: !parsed,
      });
      return { stored: true, insightId: input.id, unparsed: !parsed };
    },

    /**
     * Writes a model reply to a file (`{{topic}}` in the path is replaced); without a path,
     * returns its text to print. An empty answer writes nothing (`empty`): the node fails
     * rather than blank a document.
     */
    async writeLayerText(input: WriteLayerTextInput): Promise<{ path?: string; text?: string; empty?: true }> {
      const text = await replyText(deps.store, input.reply.transcriptId, input.reply.seq);
      if (isEmptyAnswer(text)) return { empty: true };
      if (!input.path) return { text: text.slice(0, OUTPUT_CHARS) };
      const path = renderPrompt(input.path, { topic: input.topic.replace(/[^A-Za-z0-9._-]+/g, '-') });
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text.endsWith('\n') ? text : `${text}\n`);
      return { path };
    },

    /** Stores a layer run's audit record and the layer it ran, for `dex layer --resume` (once per run). */
    async recordLayerRun(input: { record: LayerRunRecord; layer: LayerSpec }): Promise<void> {
      await layers.putLayerRun(input.record, input.layer);
    },
  };
};

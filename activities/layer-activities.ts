/**
 * The activities behind layer nodes: targets, salience, fetching, prompt rendering, storing
 * insights, writing files and the run record. Fetched data and prompts stay in the store;
 * the workflow gets keys and counts.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { FAILURE, nonRetryable } from '../core/failure-types';
import { parseInsight, unparsedInsight } from '../core/insight-parse';
import { estimateTokens, formatInsights, formatMessages, trimOldestToFit } from '../core/layer-context';
import type { ContextRef, LayerRunRecord, LayerTargets, RetrievalProfile, TargetContext } from '../core/layer-types';
import { renderPrompt } from '../core/prompt-template';
import type { ActivityDeps } from './deps';
import { createLayerModelActivities, replyText } from './layer-model';
import { layerStore } from '../store/layer-store';

const HOUR_MS = 3_600_000;
/** How much of a printed output goes into the run record. */
const OUTPUT_CHARS = 4_000;

/** A model reply in the store. */
type ReplyRef = NonNullable<TargetContext['reply']>;

/** Builds the layer activities (the layer model call among them) over the host's dependencies. */
export const createLayerActivities = (deps: ActivityDeps) => {
  const layers = () => layerStore(deps.store);
  return {
    ...createLayerModelActivities(deps),

    /** The layer's targets: its keys, or the store's topics with enough messages in the lookback. */
    async resolveLayerTargets(input: { targets: LayerTargets; now: number }): Promise<string[]> {
      const t = input.targets;
      if ('keys' in t) return [...new Set(t.keys)];
      const since = new Date(input.now - t.select.lookbackHours * HOUR_MS).toISOString();
      return layers().activeTopics(since, t.select.minMessages, t.select.limit);
    },

    /** Spends a target attempt's salience from its topic (once per key); `spent: false` when the budget does not cover it. */
    async spendTargetSalience(input: { key: string; topic: string; cost: number; runId: string }): Promise<{ spent: boolean; balance: number }> {
      return layers().spendSalience(input.key, input.topic, input.cost, `attempt:${input.runId}`);
    },

    /** Gives back part of a failed attempt's salience (once per key). */
    async refundTargetSalience(input: { key: string; topic: string; amount: number; runId: string }): Promise<void> {
      layers().addSalience(input.key, input.topic, input.amount, `refund:${input.runId}`);
    },

    /** Fetches a topic's recent messages, trimmed oldest first to `maxContextTokens`, and keeps their ids under `key`. */
    async fetchLayerMessages(input: {
      key: string;
      topic: string;
      now: number;
      lookbackHours: number;
      limitPerChannel: number;
      maxContextTokens?: number;
    }): Promise<{ ref: ContextRef; fetched: number; trimmed: number; tokens: number }> {
      const store = layers();
      const since = new Date(input.now - input.lookbackHours * HOUR_MS).toISOString();
      const fetched = store.recentMessages(input.topic, since, new Date(input.now).toISOString(), input.limitPerChannel);
      const fit = trimOldestToFit(fetched, input.maxContextTokens);
      store.putContext(input.key, fit.kept.map((m) => m.id));
      // A retry keeps what the first attempt fetched, even if messages arrived since.
      const kept = store.messagesByIds(store.getContext(input.key) ?? []);
      const tokens = kept.reduce((sum, m) => sum + estimateTokens(formatMessages([m]) + '\n'), 0);
      return { ref: { key: input.key, count: kept.length }, fetched: fetched.length, trimmed: fetched.length - kept.length, tokens };
    },

    /** Fetches a topic's prior insights by retrieval profile and keeps their ids under `key`. */
    async fetchLayerInsights(input: { key: string; topic: string; profile: RetrievalProfile; maxPerTopic: number }): Promise<ContextRef> {
      const store = layers();
      store.putContext(input.key, store.topicInsights(input.topic, input.profile, input.maxPerTopic).map((i) => i.id));
      return { key: input.key, count: store.getContext(input.key)?.length ?? 0 };
    },

    /** Combines the targets' insights into one context under `key`. */
    async reduceLayerResults(input: { key: string; insightIds: string[] }): Promise<ContextRef> {
      const store = layers();
      store.putContext(input.key, input.insightIds);
      return { key: input.key, count: store.getContext(input.key)?.length ?? 0 };
    },

    /** Renders a node's prompt template with the topic, messages and insights, and stores it as the transcript's first message. */
    async renderLayerPrompt(input: { transcriptId: string; templatePath: string; topic: string; layerName: string; context: TargetContext }): Promise<{ tokens: number }> {
      let template: string;
      try {
        template = readFileSync(input.templatePath, 'utf8');
      } catch (err) {
        throw nonRetryable(FAILURE.TemplateMissing, `prompt template ${input.templatePath}: ${(err as Error).message}`);
      }
      const store = layers();
      const { messages, insights, reply, targets } = input.context;
      const prompt = renderPrompt(template, {
        topic: input.topic,
        layer: input.layerName,
        messages: messages ? formatMessages(store.messagesByIds(store.getContext(messages.key) ?? [])) : '',
        insights: insights ? formatInsights(store.insightsByIds(store.getContext(insights.key) ?? [])) : '',
        reply: reply ? replyText(deps.store, reply.transcriptId, reply.seq) : '',
        targets: (targets ?? []).map((t) => `- ${t.key}: ${t.status}`).join('\n'),
      });
      deps.store.appendMessage(input.transcriptId, 0, 'user', [{ type: 'text', text: prompt }]);
      return { tokens: estimateTokens(prompt) };
    },

    /**
     * Stores the insight in a model reply under `id` (once). `strict`: an answer without the
     * insight JSON stores nothing and says so; `graceful`: its text is kept, flagged unparsed.
     */
    async storeLayerInsight(input: {
      id: string;
      topic: string;
      category: string;
      reply: ReplyRef;
      parse: 'strict' | 'graceful';
      layerRunId: string;
      salienceSpent: number;
    }): Promise<{ stored: true; insightId: string; unparsed: boolean } | { stored: false; reason: string }> {
      const text = replyText(deps.store, input.reply.transcriptId, input.reply.seq);
      const parsed = parseInsight(text);
      if (!parsed && input.parse === 'strict') {
        return { stored: false, reason: `the model's answer is not insight JSON with a "content" field: ${JSON.stringify(text.slice(0, 120))}` };
      }
      const insight = parsed ?? unparsedInsight(text);
      const { strengthAdjustment, ...numbers } = insight;
      layers().putInsight({
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

    /** Writes a model reply to a file (`{{topic}}` in the path is replaced); without a path, returns its text to print. */
    async writeLayerText(input: { path?: string; topic: string; reply: ReplyRef }): Promise<{ path?: string; text?: string }> {
      const text = replyText(deps.store, input.reply.transcriptId, input.reply.seq);
      if (!input.path) return { text: text.slice(0, OUTPUT_CHARS) };
      const path = renderPrompt(input.path, { topic: input.topic.replace(/[^A-Za-z0-9._-]+/g, '-') });
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text.endsWith('\n') ? text : `${text}\n`);
      return { path };
    },

    /** Stores a layer run's audit record (once per run). */
    async recordLayerRun(record: LayerRunRecord): Promise<void> {
      layers().putLayerRun(record);
    },
  };
};

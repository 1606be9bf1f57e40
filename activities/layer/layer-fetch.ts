/** Fetching a layer target's context: which targets, their messages and prior insights, the targets' insights reduced; ids kept in the store under a key. */
import { estimateTokens, formatMessages, trimOldestToFit } from '../../core/layer/layer-context';
import type { ContextRef, LayerTargets } from '../../core/layer/layer-types';
import type { FetchLayerInsightsInput, FetchLayerMessagesInput } from '../../core/layer/target/target-steps';
import type { ActivityDeps } from '../deps';

const HOUR_MS = 3_600_000;

/** Builds the fetch activities of a layer run over the host's dependencies. */
export const createLayerFetchActivities = (deps: ActivityDeps) => {
  const { layers } = deps.store;
  return {
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
  };
};

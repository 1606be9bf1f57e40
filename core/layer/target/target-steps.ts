import type { LlmSpec, TokenUsage } from '../../run/run-types';
import type { PromptLimit } from '../layer-budget';
import type { ContextRef, RetrievalProfile, TargetContext, TrimKind } from '../layer-types';

/** A model reply in the store. */
type ReplyRef = NonNullable<TargetContext['reply']>;

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

/** Input of `renderLayerPrompt`. */
export interface RenderLayerPromptInput {
  transcriptId: string;
  templatePath: string;
  /** The sha256 of the template's text as the run was started with it, kept in the store (core/run/ids.ts layerTemplateArtifactId). */
  templateSha?: string;
  node: string;
  topic: string;
  layerName: string;
  context: TargetContext;
  /** This prompt's budget (core/layer/layer-budget.ts promptLimit). */
  limit: PromptLimit;
  trim: TrimKind[];
  /** What the run may still send, and its `max_tokens_per_run`, when the layer has a run budget. */
  run?: { tokensLeft: number; maxTokens: number };
}

/** The prompt stored (its estimated tokens and what was trimmed), or why the topic is skipped. */
export type RenderLayerPromptResult =
  | { rendered: true; tokens: number; messagesTrimmed: number; insightsTrimmed: number }
  | { rendered: false; tokens: number; reason: string };

/** Input of `fetchLayerMessages`: a topic's messages in the lookback, trimmed oldest first to `maxContextTokens`, kept under `key`. */
export interface FetchLayerMessagesInput {
  key: string;
  topic: string;
  now: number;
  lookbackHours: number;
  limitPerChannel: number;
  maxContextTokens?: number;
}

/** Input of `fetchLayerInsights`: a topic's prior insights by retrieval profile, kept under `key`. */
export interface FetchLayerInsightsInput {
  key: string;
  topic: string;
  profile: RetrievalProfile;
  maxPerTopic: number;
  includeUnparsed?: boolean;
}

/** One keyed entry of a topic's salience ledger. */
export interface SalienceEntry {
  key: string;
  topic: string;
  amount: number;
  runId: string;
}

/** Input of `storeLayerInsight`: the insight in a model reply, stored under `id` (once). */
export interface StoreLayerInsightInput {
  id: string;
  topic: string;
  category: string;
  reply: ReplyRef;
  parse: 'strict' | 'graceful';
  layerRunId: string;
  salienceSpent: number;
}

/** What `storeLayerInsight` did. */
export type StoreLayerInsightResult = { stored: true; insightId: string; unparsed: boolean } | { stored: false; reason: string; empty?: true };

/** Input of `writeLayerText`: a model reply written to `path`, or returned to print. */
export interface WriteLayerTextInput {
  path?: string;
  topic: string;
  reply: ReplyRef;
}

/** A step called with its input and a one-line summary that reads as a step (`topic · node · messages`). */
type Step<I, R> = (input: I, summary: string) => Promise<R>;

/**
 * What one target's run calls (fetch, render, salience, model, store, write), each step with a
 * one-line summary. A target in its own child workflow calls them as activities; a target run as
 * one activity calls the layer activities' functions directly (docs/layers.md#where-a-target-runs).
 * The layer activities implement these signatures; the contract lives here, below both, so
 * neither imports the other.
 */
export interface TargetSteps {
  fetchLayerMessages: Step<FetchLayerMessagesInput, { ref: ContextRef; fetched: number; trimmed: number; tokens: number }>;
  fetchLayerInsights: Step<FetchLayerInsightsInput, ContextRef>;
  renderLayerPrompt: Step<RenderLayerPromptInput, RenderLayerPromptResult>;
  reserveLayerSalience: Step<SalienceEntry, { reserved: boolean; balance: number }>;
  settleLayerSalience: Step<SalienceEntry, void>;
  refundTargetSalience: Step<SalienceEntry, void>;
  spendTargetSalience: Step<Omit<SalienceEntry, 'amount'> & { cost: number }, { spent: boolean; balance: number }>;
  callLayerModel: Step<LayerModelCallInput, LayerModelCallResult>;
  storeLayerInsight: Step<StoreLayerInsightInput, StoreLayerInsightResult>;
  writeLayerText: Step<WriteLayerTextInput, { path?: string; text?: string; empty?: true }>;
}

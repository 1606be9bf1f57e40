/**
 * Types of layer runs (docs/interfaces.md#plans-workflows-and-ids: `layerWorkflow`): the checked layer file, the workflow's
 * input, what each target reports and the run record. Plain data: it crosses history as JSON.
 */
import type { LlmSpec, RunState, TokenUsage } from '../run/run-types';
import type { LayerCarry } from './layer-chain';

/** How `store_insight` treats a model answer that is not the insight JSON. @default "repair" */
export type ParseMode = 'strict' | 'graceful' | 'repair';

/** One node of a layer, its params checked and defaulted; paths are absolute. */
export type LayerNode =
  | { name: string; type: 'fetch_messages'; params: { lookbackHours: number; limitPerChannel: number; maxContextTokens?: number } }
  | { name: string; type: 'fetch_insights'; params: { retrievalProfile: RetrievalProfile; maxPerTopic: number; includeUnparsed: boolean } }
  | { name: string; type: 'llm_call'; params: LlmCallParams }
  | { name: string; type: 'store_insight'; params: { category: string; parse: ParseMode } }
  | { name: string; type: 'reduce'; params: { includeUnparsed: boolean } }
  | { name: string; type: 'output'; params: { path?: string } }
  | { name: string; type: 'synthesize_to_global'; params: LlmCallParams & { category: string; parse: ParseMode } }
  | { name: string; type: 'update_self_concept'; params: { documentPath: string } };

/** Params of a node that calls the model. */
export interface LlmCallParams {
  /** Absolute path of the prompt template, rendered in an activity. */
  promptTemplate: string;
  /** Absent: the layer's model. */
  model?: string;
  /** @default 500 */
  maxTokens: number;
  /** The most tokens this node's whole rendered prompt may have (docs/layers.md#context-budgets). @default 150000 */
  maxContextTokens: number;
}

/** Which prior insights `fetch_insights` prefers. @default "balanced" */
export type RetrievalProfile = 'recent' | 'strongest' | 'balanced';

/** Which topics a layer runs for: named keys, or the store's topics with recent messages. */
export type LayerTargets =
  | { keys: string[] }
  | { select: { lookbackHours: number; minMessages: number; limit?: number } };

/** The salience rules of a layer: what a model call's prompt costs a topic and how much a failure gives back (docs/layers.md#salience). */
export interface SalienceRules {
  /** Salience per input token of a model call. @default 0.001 */
  costPerToken: number;
  /** Fraction of what a target spent that it gets back when it fails. @default 0.5 */
  refund: number;
  /**
   * Only in runs started by release 2026-11-22-0603 or before: a flat cost per target attempt, charged as that
   * release did (core/layer/layer-released.ts). A layer file cannot set it any more.
   */
  cost?: number;
}

/** What a prompt budget may trim, in the order given: the oldest messages, the weakest insights. */
export type TrimKind = 'messages' | 'insights';

/** The context budgets of a layer (docs/layers.md#context-budgets). */
export interface ContextRules {
  /** The most prompt tokens one topic's model calls may send in a run. */
  maxTokensPerTopic?: number;
  /** The most prompt tokens the whole run may send, all topics together. */
  maxTokensPerRun?: number;
  /** What to trim first when a prompt is over its budget. @default ["messages", "insights"] */
  trim: TrimKind[];
}

/** A checked `*.layer.yaml`. */
export interface LayerSpec {
  name: string;
  targets: LayerTargets;
  nodes: LayerNode[];
  salience: SalienceRules;
  context: ContextRules;
  /** How many targets run at once (docs/layers.md#running-targets-at-once); absent, one after another. */
  concurrency?: number;
  /** Each target in a child workflow of its own instead of one activity (docs/layers.md#where-a-target-runs). */
  targetWorkflows?: boolean;
  /** The layer's model when a node names none. */
  model?: string;
}

/**
 * Where a failed target can go on from: the node it failed at (its index in the nodes the
 * target ran: the per-target part, or the global part after its reduce) and the context it had
 * just before that node (store references only).
 */
export interface ResumePoint {
  target: string;
  index: number;
  node: string;
  context: TargetContext;
}

/** The `layerWorkflow` input, decided by the client before it starts. */
export interface LayerInput {
  layer: LayerSpec;
  /** sha256 of the layer file and its templates, so a run records exactly which layer ran. */
  hash: string;
  /** Task queue of the layer's activities: the host's that holds the store, or a shared store's (client/run/layer-queue.ts). */
  hostQueue: string;
  llm: LlmSpec;
  /** The model of nodes that name none (the layer's, else `--llm anthropic:MODEL`, else dex's default). */
  defaultModel: string;
  /** `dex layer --resume`: re-run only these failed targets of run `runId`, each from its node. */
  resume?: { runId: string; points: ResumePoint[] };
  /** {@link TemplateRefs}; absent in runs started before dex stored templates. */
  templates?: TemplateRefs;
  /**
   * Events the run's history may reach before it continues as new (docs/layers.md#continue-as-new).
   * @default 8000 (core/run/history-limit.ts HISTORY_LIMIT)
   */
  historyLimit?: number;
  /** Set by the run before this one of the same chain, when it continued as new. */
  carried?: LayerCarry;
  /**
   * The clock (ms) lookbacks count back from, in place of the run's start: `dex replay-test` gives
   * the recording's, so a replay fetches the messages the recording did (docs/testing-your-flows.md).
   */
  clock?: number;
}

/**
 * The sha256 of each prompt template's text, by the path the layer names it with. The client puts
 * each text in the store (core/run/ids.ts layerTemplateArtifactId) before the run starts, so a worker
 * on another host renders the template the run was started with (docs/layers.md#running-targets-at-once).
 */
export type TemplateRefs = Record<string, string>;

/** A fetched or reduced context, kept in the store under `key`; the workflow passes only the key. */
export interface ContextRef {
  key: string;
  count: number;
}

/** Where a target's pipeline stands between nodes: references into the store, never the data. */
export interface TargetContext {
  messages?: ContextRef;
  insights?: ContextRef;
  /** The last model answer: transcript and sequence number of the reply. */
  reply?: { transcriptId: string; seq: number };
  /** Names and states of the targets, for a global part's prompt. */
  targets?: { key: string; status: string }[];
}

/** The input of `layerTargetWorkflow`: one target through the per-target (or global) part of the nodes. */
export interface LayerTargetInput {
  runId: string;
  target: string;
  nodes: LayerNode[];
  hostQueue: string;
  llm: LlmSpec;
  defaultModel: string;
  layerName: string;
  salience: SalienceRules;
  context: ContextRules;
  /** Index of `nodes[0]` in its part of the layer (not 0 when a resumed target starts at a later node). */
  firstIndex: number;
  /** Prompt tokens the run may still send (`max_tokens_per_run` less what earlier targets sent); absent: no run budget. */
  runTokensLeft?: number;
  /** The run's clock at its start (ms): lookbacks count back from here, so a resumed target fetches the same. */
  now: number;
  /** Whether the target pays salience (the global topic does not). */
  paysSalience: boolean;
  seed?: TargetContext;
  templates?: TemplateRefs;
  /** The layer run whose cassette lines the target claims; absent in a child workflow, which reads its root. */
  cassetteScope?: string;
}

/** How one target ended. */
export interface LayerTargetResult {
  target: string;
  status: 'success' | 'failed' | 'skipped';
  reason?: string;
  error?: { node: string; message: string };
  insightIds: string[];
  tokens: TokenUsage;
  costUsd: number;
  modelCalls: number;
  model?: string;
  messages: number;
  messagesTrimmed: number;
  insightsTrimmed: number;
  /** Message tokens `fetch_messages` kept (estimated). */
  contextTokens: number;
  /** Tokens of the rendered prompts sent (estimated), for the context budgets. */
  promptTokens: number;
  salienceSpent: number;
  outputs: { node: string; text: string }[];
  /** Where a failed target can be resumed from. */
  failedAt?: Omit<ResumePoint, 'target'>;
}

/** Layer run status: `failed` every target failed, `partial` some did, `dry` no insight made, else `success`. */
export type LayerRunStatus = 'success' | 'partial' | 'dry' | 'failed';

/** The audit record of one layer run, stored at its end and returned as its result. */
export interface LayerRunRecord {
  id: string;
  /** `completed`, or `failed` when every target failed (docs/interfaces.md#people-in-the-loop states). */
  state: RunState;
  status: LayerRunStatus;
  layerName: string;
  layerHash: string;
  startedAt: string;
  endedAt: string;
  targetsMatched: number;
  targetsProcessed: number;
  targetsSkipped: number;
  targetsFailed: number;
  insightsCreated: number;
  model: string;
  tokens: TokenUsage;
  tokensIn: number;
  tokensOut: number;
  tokensTotal: number;
  costUsd: number;
  messagesTrimmed: number;
  insightsTrimmed: number;
  contextTokens: number;
  promptTokens: number;
  skipped: { target: string; reason: string }[];
  errors: { target: string; node: string; error: string }[];
  outputs: { target: string; node: string; text: string }[];
  /** The failed targets `dex layer --resume` re-runs, each from its node. */
  resumable: ResumePoint[];
  /** The run this one resumed (`dex layer --resume`). */
  resumes?: string;
  /** How each target (and the global part) ended; absent in records of runs before it was kept. */
  targets?: { target: string; status: LayerTargetResult['status'] }[];
  /** In a run's result: how many entries each list had where it holds only the first ones (core/layer/record-lists.ts); the stored record holds all. */
  cut?: Partial<Record<'targets' | 'skipped' | 'errors' | 'outputs' | 'resumable', number>>;
}

/** The numbers of an insight, as the model gives them (0..1) or as defaults. */
export interface InsightNumbers {
  confidence: number;
  importance: number;
  novelty: number;
  /** Multiplies the salience spent into the insight's strength. @default 1 */
  strengthAdjustment: number;
  valence: { joy: number | null; concern: number | null; curiosity: number | null; warmth: number | null; tension: number | null };
}

/** An insight parsed from a model answer. */
export interface ParsedInsight extends InsightNumbers {
  content: string;
}

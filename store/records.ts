/**
 * The store's contract (docs/production.md#the-shared-store): what every activity and command may
 * keep and read, declared here on its own; SQLite (store/sqlite/) and PostgreSQL (store/postgres/)
 * each implement it. Every write is keyed by a caller-chosen id and a second write of a key is
 * ignored, so a retried activity never stores anything twice.
 */
import type { InsightNumbers, LayerRunRecord, LayerSpec, RetrievalProfile } from '../core/layer/layer-types';
import type { InsightView, TopicMessage } from '../core/layer/layer-context';
import type { ProjectNote } from '../core/roadmap/project-memory';
import type { RunMemoryEntry } from '../core/run/run-memory';

/** One message of a model transcript, as sent to the Messages API. */
export interface StoredMessage {
  seq: number;
  role: 'user' | 'assistant';
  content: unknown;
}

/** A tool's full result, kept out of workflow history. */
export interface StoredToolResult {
  name: string;
  content: string;
  isError: boolean;
}

/** One model call's accounting. */
export interface ModelCallRecord {
  callKey: string;
  workflowId: string;
  taskId: string;
  phase: string;
  model: string;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  costUsd: number;
  durationMs: number;
  /** The reply's `stop_reason`, so a reused reply reports what the original did. */
  stopReason?: string | null;
}

/** One phase's outcome and totals. */
export interface PhaseRecord {
  key: string;
  workflowId: string;
  taskId: string;
  phase: string;
  state: string;
  turns: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  costUsd: number;
  durationMs: number;
  model: string;
  commitSha: string | null;
}

/** A stored insight with everything it keeps. */
export interface StoredInsight extends InsightView, Omit<InsightNumbers, 'strengthAdjustment'> {
  layerRunId: string;
  salienceSpent: number;
  /** True when a `graceful` store kept an answer that was not the insight JSON. */
  unparsed: boolean;
}

/** One salience ledger entry. */
export interface SalienceEntry {
  key: string;
  topic: string;
  amount: number;
  reason: string;
}

/** Run records: transcripts, tool results, artifacts, model-call and phase records, cassette claims. */
export interface RunRecords {
  appendMessage(transcriptId: string, seq: number, role: StoredMessage['role'], content: unknown): Promise<void>;
  getMessage(transcriptId: string, seq: number): Promise<StoredMessage | undefined>;
  /** A transcript's messages in order, up to `uptoSeq`. */
  listMessages(transcriptId: string, uptoSeq?: number): Promise<StoredMessage[]>;
  /** The ids of the transcripts that start with `prefix`. */
  listTranscripts(prefix: string): Promise<string[]>;
  putToolResult(transcriptId: string, toolUseId: string, result: StoredToolResult): Promise<void>;
  getToolResult(transcriptId: string, toolUseId: string): Promise<StoredToolResult | undefined>;
  putArtifact(id: string, kind: string, content: string): Promise<void>;
  getArtifact(id: string): Promise<{ kind: string; content: string } | undefined>;
  /** Whether any artifact's id starts with `prefix` (a workflow's: core/run/ids.ts workflowKeyPrefix); never for an empty prefix. */
  hasArtifactsUnder(prefix: string): Promise<boolean>;
  recordModelCall(r: ModelCallRecord): Promise<void>;
  /** A model reply and its accounting at once: a reply is never stored without what it cost. */
  recordModelReply(transcriptId: string, seq: number, content: unknown, r: ModelCallRecord): Promise<void>;
  getModelCall(callKey: string): Promise<ModelCallRecord | undefined>;
  listModelCalls(workflowId: string): Promise<ModelCallRecord[]>;
  recordPhase(r: PhaseRecord): Promise<void>;
  listPhases(workflowId: string): Promise<PhaseRecord[]>;
  /** The first of `candidates` (cassette line numbers) not yet claimed in `scope`, claimed for `callKey`; the same line again for the same call. */
  claimCassetteLine(scope: string, cassette: string, callKey: string, candidates: number[]): Promise<number | undefined>;
}

/** The layer tables: topic messages, contexts, insights, the salience ledger, layer runs. */
export interface LayerRecords {
  importMessages(messages: TopicMessage[]): Promise<{ added: number; skipped: number }>;
  activeTopics(since: string, minMessages: number, limit?: number): Promise<string[]>;
  recentMessages(topic: string, since: string, until: string, limitPerChannel: number): Promise<TopicMessage[]>;
  messagesByIds(ids: string[]): Promise<TopicMessage[]>;
  putContext(key: string, ids: string[]): Promise<void>;
  getContext(key: string): Promise<string[] | undefined>;
  topicInsights(topic: string, profile: RetrievalProfile, limit: number, includeUnparsed?: boolean): Promise<StoredInsight[]>;
  insightsByIds(ids: string[]): Promise<StoredInsight[]>;
  /** False when an insight with its id was already there. */
  putInsight(i: Omit<StoredInsight, 'createdAt'>): Promise<boolean>;
  listInsights(filter?: { topic?: string; layerRunId?: string }): Promise<StoredInsight[]>;
  salienceBalance(topic: string): Promise<number>;
  addSalience(key: string, topic: string, amount: number, reason: string): Promise<boolean>;
  spendSalience(key: string, topic: string, cost: number, reason: string): Promise<{ spent: boolean; balance: number }>;
  salienceEntries(keyPrefix: string): Promise<SalienceEntry[]>;
  putLayerRun(record: LayerRunRecord, spec?: LayerSpec): Promise<void>;
  layerRunsResuming(id: string): Promise<string[]>;
  getLayerRunSpec(id: string): Promise<LayerSpec | undefined>;
  getLayerRun(id: string): Promise<LayerRunRecord | undefined>;
}

/** The memory tables: run memory and project memory (docs/roadmaps.md#memory). */
export interface MemoryRecords {
  putRunEntry(runKey: string, entry: RunMemoryEntry): Promise<boolean>;
  runEntries(runKey: string, except?: string): Promise<RunMemoryEntry[]>;
  addNote(repoKey: string, kind: ProjectNote['kind'], text: string): Promise<{ id: number; added: boolean }>;
  notes(repoKey: string): Promise<ProjectNote[]>;
  forget(repoKey: string, id: number): Promise<boolean>;
}

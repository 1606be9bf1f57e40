/** Rows the store contract (test/support/store/store-contract.ts) writes, and its helpers. */
import { randomBytes } from 'node:crypto';
import type { TopicMessage } from '../../../core/layer/layer-context';
import { buildLayerRunRecord, emptyTargetResult } from '../../../core/layer/layer-run';
import type { LayerInput, LayerRunRecord, LayerSpec } from '../../../core/layer/layer-types';
import type { RunMemoryEntry } from '../../../core/run/run-memory';
import type { ModelCallRecord, PhaseRecord, StoredInsight } from '../../../store/records';

/** A name of its own for each test: one store serves a whole contract run. */
export const unique = (label: string) => `${label}-${randomBytes(4).toString('hex')}`;
/** A pause longer than a millisecond, so the next row's created_at sorts after the last one's. */
export const later = () => new Promise((resolve) => setTimeout(resolve, 5));
export const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Raw command output: a NUL byte, non-ASCII, an emoji (two UTF-16 units), a newline. */
export const RAW_OUTPUT = 'before\0after ünïcödé 🚀\nline 2';

export const message = (id: string, topic: string, channel: string, time: string, text = `text of ${id}`): TopicMessage => ({ id, topic, channel, author: 'ana', text, time });

export const modelCall = (callKey: string, workflowId: string, extra: Partial<ModelCallRecord> = {}): ModelCallRecord => ({
  callKey,
  workflowId,
  taskId: 'T1',
  phase: 'implement',
  model: 'claude-sonnet-4-6',
  input: 1200,
  output: 340,
  cacheRead: 5000,
  cacheWrite: 0,
  costUsd: 0.012345,
  durationMs: 2100,
  ...extra,
});

export const phase = (key: string, workflowId: string, extra: Partial<PhaseRecord> = {}): PhaseRecord => ({
  key,
  workflowId,
  taskId: 'T1',
  phase: 'implement',
  state: 'completed',
  turns: 7,
  input: 30_000_000_000, // more than 32 bits: token totals of long runs are
  output: 900,
  cacheRead: 0,
  cacheWrite: 12,
  costUsd: 1.75,
  durationMs: 65_000,
  model: 'claude-sonnet-4-6',
  commitSha: null,
  ...extra,
});

export type NewInsight = Omit<StoredInsight, 'createdAt'>;
export const insight = (id: string, topic: string, numbers: Partial<NewInsight> = {}): NewInsight => ({
  id,
  topic,
  category: 'reflection',
  content: `content of ${id}`,
  confidence: 0.5,
  importance: 0.5,
  novelty: 0.5,
  strength: 1,
  valence: { joy: null, concern: 0.25, curiosity: null, warmth: 0.75, tension: null },
  layerRunId: 'run-1',
  salienceSpent: 1.5,
  unparsed: false,
  ...numbers,
});

export const layerRun = (id: string, resumes?: string): LayerRunRecord => ({
  ...buildLayerRunRecord({
    id,
    input: { layer: { name: 'nightly' }, hash: 'ab'.repeat(32), defaultModel: 'claude-sonnet-4-6' } as LayerInput,
    startedAt: '2025-01-01T00:00:00.000Z',
    endedAt: '2025-01-01T00:05:00.000Z',
    targets: [{ ...emptyTargetResult('ops'), insightIds: [`${id}/ops/store`] }],
  }),
  ...(resumes ? { resumes } : {}),
});

export const layerSpec = (name: string) => ({ name, targets: { keys: ['ops', 'design'] }, nodes: [], salience: { costPerToken: 0.001, refund: 0.5 }, context: { trim: ['messages'] } }) as unknown as LayerSpec;

export const runEntry = (taskId: string): RunMemoryEntry => ({ taskId, title: `title of ${taskId}`, files: [`src/${taskId}.ts`], decisions: ['keep it small'], failures: [] });


/**
 * What a recorded layer run read of the store and what it left there (docs/interfaces.md#recording-a-run):
 * the world a replay's empty store starts from, and the outcome a replay is compared with. Both
 * `dex layer --llm record:FILE` and `dex replay-test` read them the same way.
 */
import { GLOBAL_TOPIC } from '../../core/layer/layer-run';
import type { LayerRunRecord, LayerSpec } from '../../core/layer/layer-types';
import type { DexStore } from '../../store/dex-store';
import type { RunEnd } from '../run/follow-run';
import type { LayerOutcome, LayerWorld } from './recorded-plans';

const HOUR_MS = 3_600_000;

/** The messages, prior insights and salience balances of every topic `layer` may read at `now`. */
export async function snapshotLayerWorld(store: DexStore, layer: LayerSpec, now: number): Promise<LayerWorld> {
  const lookbacks = layer.nodes.flatMap((n) => (n.type === 'fetch_messages' ? [n.params.lookbackHours] : []));
  if ('select' in layer.targets) lookbacks.push(layer.targets.select.lookbackHours);
  const since = new Date(now - Math.max(0, ...lookbacks) * HOUR_MS).toISOString();
  const until = new Date(now).toISOString();
  const topics = 'keys' in layer.targets ? [...new Set(layer.targets.keys)] : await store.layers.activeTopics(since, 1);
  const world: LayerWorld = { messages: [], insights: [], salience: {} };
  for (const topic of topics) {
    world.messages.push(...(await store.layers.recentMessages(topic, since, until, Number.MAX_SAFE_INTEGER)));
    world.salience[topic] = await store.layers.salienceBalance(topic);
  }
  for (const topic of [...topics, GLOBAL_TOPIC]) world.insights.push(...(await store.layers.listInsights({ topic })));
  return world;
}

/** Puts `world` in a replay's empty store: messages, then each topic's balance as recorded, then the insights, oldest first. */
export async function seedLayerWorld(store: DexStore, world: LayerWorld): Promise<void> {
  await store.layers.importMessages(world.messages);
  for (const [topic, balance] of Object.entries(world.salience)) {
    // Importing earned each message its salience; the recording's balance also held what earlier runs spent.
    const delta = balance - (await store.layers.salienceBalance(topic));
    if (delta !== 0) await store.layers.addSalience(`replay-test/${topic}`, topic, delta, 'replay-test');
  }
  for (const insight of [...world.insights].sort((a, b) => a.createdAt.localeCompare(b.createdAt))) {
    const { createdAt: _created, ...rest } = insight;
    await store.layers.putInsight(rest);
  }
}

/** How layer run `runId` ended: its record's statuses, and the insights and prompts the store keeps of it. */
export async function layerOutcomeOf(store: DexStore, runId: string, end: RunEnd<unknown>): Promise<LayerOutcome> {
  const record = end.result as LayerRunRecord | undefined;
  const local = (id: string) => id.slice(runId.length + 1);
  const insights = (await store.layers.listInsights({ layerRunId: runId }))
    .map((i) => ({ key: local(i.id), topic: i.topic, category: i.category, content: i.content, unparsed: i.unparsed }))
    .sort((a, b) => a.key.localeCompare(b.key));
  const prompts: Record<string, string> = {};
  for (const transcript of (await store.listTranscripts(`${runId}/`)).sort()) {
    const first = (await store.listMessages(transcript)).find((m) => m.role === 'user');
    if (first) prompts[local(transcript)] = messageText(first.content);
  }
  const targets = (record?.targets ?? []).map((t) => ({ id: t.target, status: t.status }));
  return { state: end.state, ...(record ? { status: record.status } : {}), targets, insights, prompts };
}

/** A stored user message's text: a string, or its text blocks joined. */
function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b): b is { type: 'text'; text: string } => (b as { type?: string })?.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

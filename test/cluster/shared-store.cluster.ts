import type { temporal } from '@temporalio/proto';
/**
 * The shared store on the cluster (docs/production.md#the-shared-store): a layer over 200 topics
 * with DEX_STORE on PostgreSQL, started detached by `dex layer`, runs on two `dex worker`
 * processes with DEX_HOMEs and host queues of their own (two hosts). Both take targets from the
 * store's queue; one is SIGKILLed mid-layer and the other finishes; PostgreSQL, which holds both
 * Temporal's data and dex's store, is restarted under the run; each insight is stored once. The
 * prompt template is removed from disk once the run started: workers render the stored copy.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LayerRunRecord } from '../../core/layer/layer-types';
import type { DexStore } from '../../store/dex-store';
import { openPostgresDexStore } from '../../store/postgres/postgres-store';
import { runDex } from '../support/env/dex-cli';
import { insightLine, layerDir, messagesFor } from '../support/plans/layer-fixtures';
import { crashWorker, killDexWorkers, requestsPerCall, spawnDexWorker } from '../support/env/worker-process';
import { useClusterEnv, waitForPollers } from './cluster-env';
import { createTestDatabase, type TestDatabase } from './test-database';

const QUEUE = 'dex-shared';
const TOPICS = Array.from({ length: 200 }, (_, i) => `topic-${String(i + 1).padStart(3, '0')}`);
const ANSWERS = TOPICS.map((t) => insightLine(t, 'reflect'));
const CONCURRENCY = 8;

// No in-process worker: the two hosts are real `dex worker` processes.
const cluster = useClusterEnv({ cassette: ANSWERS, latencyMs: 20 });
let db: TestDatabase;
let store: DexStore;

beforeAll(async () => {
  db = await createTestDatabase(cluster.bed, 'dex_shared');
  store = await openPostgresDexStore(db.url);
});

afterAll(async () => {
  killDexWorkers();
  await store?.close();
  await db?.drop();
});

/** The environment of a dex command or worker on "host" `name`: its own DEX_HOME, the shared store. */
function hostEnv(name: string): NodeJS.ProcessEnv {
  return {
    TEMPORAL_ADDRESS: cluster.bed.address,
    DEX_TASK_QUEUE: QUEUE,
    DEX_HOST_QUEUE: `${QUEUE}@${name}`,
    DEX_HOME: mkdtempSync(join(tmpdir(), `dex-${name}-`)),
    DEX_STORE: db.url,
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: cluster.fake.url,
    NODE_OPTIONS: undefined,
  };
}

function startHost(name: string): ChildProcess {
  const env = hostEnv(name);
  return spawnDexWorker({ address: cluster.bed.address, dexHome: env.DEX_HOME!, taskQueue: QUEUE, hostQueue: env.DEX_HOST_QUEUE!, anthropicUrl: cluster.fake.url, env: { DEX_STORE: db.url } });
}

async function insightsOf(runId: string): Promise<number> {
  return (await store.layers.listInsights({ layerRunId: runId })).length;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check()); ) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** How many of the run's target activities (docs/layers.md#where-a-target-runs) each worker identity started, over every run of its chain, last to first. */
async function activitiesPerWorker(runId: string): Promise<Map<string, number>> {
  const perWorker = new Map<string, number>();
  let run: string | undefined;
  do {
    const history = await cluster.env.client.workflow.getHandle(runId, run).fetchHistory();
    const events: HistoryEvent[] = history.events ?? [];
    const targetActivities = new Set(events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runLayerTargets').map((e) => String(e.eventId)));
    for (const e of events) {
      const started = e.activityTaskStartedEventAttributes;
      if (started?.identity && targetActivities.has(String(started.scheduledEventId))) perWorker.set(started.identity, (perWorker.get(started.identity) ?? 0) + 1);
    }
    run = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  } while (run);
  return perWorker;
}

describe('a layer over 200 topics on the PostgreSQL store', () => {
  it('runs on two hosts, both doing work; one killed, PostgreSQL restarted; each insight stored once', async () => {
    const client = hostEnv('client');
    const hostA = startHost('host-a');
    startHost('host-b');
    const layer = layerDir({ name: 'spread', topics: TOPICS, cassette: ANSWERS, head: `concurrency: ${CONCURRENCY}` });
    const messages = join(layer.dir, 'messages.jsonl');
    writeFileSync(messages, messagesFor(TOPICS).map((m) => `${JSON.stringify(m)}\n`).join(''));
    const imported = await runDex(['messages', 'import', messages], { env: client });
    expect(imported.code, imported.stderr).toBe(0);
    await waitForPollers(cluster.env.client, `${QUEUE}@store-${store.id}`, 2);

    const started = await runDex(['layer', layer.file, '--detach', '--llm', 'anthropic', '--json'], { env: client });
    expect(started.code, started.stderr).toBe(0);
    const id = JSON.parse(started.stdout).workflowId as string;
    const handle = cluster.env.client.workflow.getHandle(id);
    // The workers render the template the run was started with, from the store: gone from disk, it is not missed.
    rmSync(join(layer.dir, 'prompts'), { recursive: true });

    await until('50 insights', async () => (await insightsOf(id)) >= 50);
    await crashWorker(hostA);
    await until('110 insights', async () => (await insightsOf(id)) >= 110);
    cluster.restartPostgres();
    const record = (await handle.result()) as LayerRunRecord;

    expect(record, JSON.stringify(record.errors)).toMatchObject({ status: 'success', targetsMatched: 200, targetsProcessed: 200, targetsFailed: 0, insightsCreated: 200 });
    const insights = await store.layers.listInsights({ layerRunId: id });
    expect(insights).toHaveLength(200);
    expect(new Set(insights.map((i) => i.topic)).size).toBe(200);
    // Each topic reserved and settled its salience once: two ledger entries, none twice.
    const entries = await store.layers.salienceEntries(`${id}/`);
    expect(entries).toHaveLength(400);
    // A model call is asked again only when its worker died or the database went away under it.
    const perCall = requestsPerCall(cluster.fake.requests.filter((r) => String(r.headers['x-dex-call']).startsWith(`${id}/`)));
    expect(perCall.size).toBe(200);
    expect([...perCall.values()].every((n) => n <= 2)).toBe(true);
    expect([...perCall.values()].filter((n) => n === 2).length).toBeLessThanOrEqual(2 * CONCURRENCY);

    const perWorker = await activitiesPerWorker(id);
    console.log(`activities per worker: ${[...perWorker].map(([w, n]) => `${w} ${n}`).join(', ')}`);
    expect(perWorker.size).toBe(2);
    for (const n of perWorker.values()) expect(n).toBeGreaterThan(0);
  }, 300_000);
});

import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { layerStore } from '../../../store/sqlite/layer-store';
import { Store } from '../../../store/sqlite/sqlite-store';
import { buildLayerInput } from '../../../client/requests/layer-request';
import { readSettings } from '../../../client/settings';
import type { LayerRunRecord } from '../../../core/layer/layer-types';
import { usageTotals } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { insightLine, layerDir, messagesFor } from '../../support/plans/layer-fixtures';
import { crashWorker, killDexWorkers, requestsPerCall, spawnDexWorker } from '../../support/env/worker-process';

const QUEUE = 'dex-layer-crash';
const HOST_QUEUE = 'dex-layer-crash@host-a';
const RUN_ID = 'layer-crash-1';
const TOPICS = ['crash-1', 'crash-2', 'crash-3', 'crash-4', 'crash-5'];
const ANSWERS = TOPICS.map((t) => insightLine(t, 'reflect'));
// The third target's model call hangs until the worker is killed.
const HANGING_CALL = `${RUN_ID}/crash-3/reflect#1`;

// The workers are real `dex worker` processes, started and killed by the test.
const dex = useDexEnvironment({ server: 'dev', cassette: ANSWERS });
const dexHome = mkdtempSync(join(tmpdir(), 'dex-layer-crash-home-'));

/** A real `dex worker` process on this file's server, queues and fake. */
function startWorkerProcess(): ChildProcess {
  return spawnDexWorker({ address: dex.env.address, dexHome, taskQueue: QUEUE, hostQueue: HOST_QUEUE, anthropicUrl: dex.fake.url });
}

function withStore<T>(use: (store: Store) => T): T {
  const store = Store.open(join(dexHome, 'dex.db'));
  try {
    return use(store);
  } finally {
    store.close();
  }
}

afterAll(() => killDexWorkers());

describe('a worker killed with SIGKILL in the middle of a layer run', () => {
  it('is replaced by a new worker that completes the run: no insight stored twice, no completed model call repeated', async () => {
    withStore((store) => layerStore(store).importMessages(messagesFor(TOPICS)));
    const layer = layerDir({ name: 'crash', topics: TOPICS, cassette: ANSWERS });
    const input = buildLayerInput(layer.file, { llm: 'anthropic' }, { ...readSettings({}), hostQueue: HOST_QUEUE }, { ANTHROPIC_API_KEY: 'test-key' });
    dex.fake.injectFault({ kind: 'timeout', match: { call: HANGING_CALL } });
    const first = startWorkerProcess();
    const handle = await dex.client.workflow.start('layerWorkflow', { workflowId: RUN_ID, taskQueue: QUEUE, args: [input] });

    await expect.poll(() => dex.fake.requests.some((r) => r.headers['x-dex-call'] === HANGING_CALL), { timeout: 60_000, interval: 100 }).toBe(true);
    await crashWorker(first);
    // Two targets were done before the crash.
    expect(withStore((store) => layerStore(store).listInsights({ layerRunId: RUN_ID })).map((i) => i.topic).sort()).toEqual(['crash-1', 'crash-2']);

    startWorkerProcess();
    const record = (await handle.result()) as LayerRunRecord;

    expect(record.status).toBe('success');
    expect(record.insightsCreated).toBe(5);
    const insights = withStore((store) => layerStore(store).listInsights({ layerRunId: RUN_ID }));
    expect(insights.map((i) => i.topic).sort()).toEqual(TOPICS);
    const perCall = requestsPerCall(dex.fake.requests);
    // Every call was made once, except the one in flight when the worker died.
    expect([...perCall.entries()].filter(([, n]) => n > 1)).toEqual([[HANGING_CALL, 2]]);
    expect(perCall.size).toBe(5);
    // Each answered call is counted once: the call that died unanswered costs nothing.
    expect(record.tokens).toEqual(usageTotals(ANSWERS));
    // Salience was reserved and settled once, though the third target's call ran on two workers: the
    // topic's three messages' worth less its input tokens × 0.001.
    const u = ANSWERS[2].response.usage;
    const read = u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
    expect(withStore((store) => layerStore(store).salienceBalance('crash-3'))).toBeCloseTo(3 - read * 0.001, 12);
    expect(withStore((store) => layerStore(store).salienceEntries(`${RUN_ID}/crash-3/`)).map((e) => e.key)).toEqual([`${RUN_ID}/crash-3/reflect/reserve`, `${RUN_ID}/crash-3/reflect/settle`]);
  }, 120_000);
});

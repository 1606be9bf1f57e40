import { describe, expect, it } from 'vitest';
import { runEnd } from '../../../client/run/follow-run';
import { buildLayerInput } from '../../../client/requests/layer-request';
import { readSettings } from '../../../client/settings';
import type { LayerRunRecord } from '../../../core/layer/layer-types';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { insightLine, layerDir, messagesFor } from '../../support/plans/layer-fixtures';
import { batchSizes, mostTargetsAtOnce, targetsStarted } from '../../support/plans/layer-targets';

// docs/layers.md#where-a-target-runs: a few targets to an activity, live calls to the fake model.
const TOPICS = ['b-1', 'b-2', 'b-3', 'b-4', 'b-5'];
const dex = useDexEnvironment({ server: 'dev', queue: 'dex-it-layer-batches', cassette: TOPICS.map((t) => insightLine(t, 'reflect')) });

describe('a layer with concurrency: 16 over five topics', () => {
  it('runs two targets to an activity; an overloaded model retries that activity, and its other target is not asked again', async () => {
    await dex.worker.deps.store.layers.importMessages(messagesFor(TOPICS));
    const layer = layerDir({ name: 'batches', topics: TOPICS, cassette: [], head: 'concurrency: 16' });
    const input = buildLayerInput(layer.file, { llm: 'anthropic' }, { ...readSettings({}), hostQueue: dex.worker.hostQueue }, { ANTHROPIC_API_KEY: 'test-key' });
    // b-4's first request is refused as overloaded; b-3 shares its activity and has its answer stored by then.
    dex.fake.injectFault({ status: 529, match: { task: 'b-4' } });
    const handle = await dex.start('layerWorkflow', 'layer-batches-1', input);
    const { result: record } = await runEnd<LayerRunRecord>(handle);

    expect(record).toMatchObject({ status: 'success', targetsProcessed: 5, insightsCreated: 5, targetsFailed: 0 });
    const { events = [] } = await handle.fetchHistory();
    expect(targetsStarted(events ?? [])).toEqual(TOPICS);
    expect(batchSizes(events ?? [])).toEqual([2, 2, 1]);
    expect(mostTargetsAtOnce(events ?? [])).toBeLessThanOrEqual(16);
    // The activity of b-3 and b-4 ran twice; b-3's model call was made once, b-4's twice (refused, then answered).
    const attempts = (events ?? []).flatMap((e) => e.activityTaskStartedEventAttributes?.attempt ?? []);
    expect(attempts.filter((a) => a === 2)).toHaveLength(1);
    expect(dex.requestsFor('b-3')).toHaveLength(1);
    expect(dex.requestsFor('b-4')).toHaveLength(2);
    const insights = await dex.worker.deps.store.layers.listInsights({ layerRunId: 'layer-batches-1' });
    expect(insights.map((i) => i.topic).sort()).toEqual(TOPICS);
  });
});

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEnd } from '../../../client/run/follow-run';
import { renderLayerRun } from '../../../client/render/render-layer-run';
import { buildLayerInput } from '../../../client/requests/layer-request';
import { readSettings } from '../../../client/settings';
import type { LayerInput, LayerRunRecord } from '../../../core/layer/layer-types';
import type { RunStatus } from '../../../core/run/run-types';
import { chainOf as chainIn, type Event } from '../../support/env/chain-history';
import { runDex } from '../../support/env/dex-cli';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { insightLine, layerDir, messagesFor, REFLECT_TEMPLATE } from '../../support/plans/layer-fixtures';
import { targetsStarted } from '../../support/plans/layer-targets';

// docs/layers.md#continue-as-new, docs/performance.md#bounded-history
const testEnv = useDexEnvironment({ server: 'dev', queue: 'dex-it-layer-chain' });
const store = () => testEnv.worker.deps.store.layers;

const chainOf = (workflowId: string, firstRunId: string) => chainIn(testEnv.client, workflowId, firstRunId);

const upserts = (events: Event[]) => events.filter((e) => e.upsertWorkflowSearchAttributesEventAttributes).length;
const targetStarts = (events: Event[]) => targetsStarted(events).length;

/** The input of a layer run over `topics`, `concurrency` at once, with `yaml` added to its nodes. */
async function layerOver(name: string, topics: string[], concurrency: number, extra: { yaml?: string; cassette?: ReturnType<typeof insightLine>[] } = {}): Promise<{ input: LayerInput; dir: string }> {
  await store().importMessages(messagesFor(topics));
  const cassette = [...topics.map((t) => insightLine(t, 'reflect')), ...(extra.cassette ?? [])];
  const layer = layerDir({ name, topics, cassette, head: `concurrency: ${concurrency}`, extraYaml: extra.yaml });
  writeFileSync(join(layer.dir, 'prompts', 'global.md'), `${REFLECT_TEMPLATE}\n{{targets}}\n`);
  const input = buildLayerInput(layer.file, { llm: `replay:${layer.cassette}` }, { ...readSettings({}), hostQueue: testEnv.worker.hostQueue });
  return { input, dir: layer.dir };
}

describe('a layer over 200 topics with a history limit of 400 events', () => {
  it('continues as new several times, each history under the limit, and ends with the whole run', async () => {
    const topics = Array.from({ length: 200 }, (_, i) => `can-${i}`);
    const { input } = await layerOver('chain', topics, 8);
    const limit = 400;
    const handle = await testEnv.start('layerWorkflow', 'layer-chain-1', { ...input, historyLimit: limit });
    const { result: record } = await runEnd<LayerRunRecord>(handle);

    const runs = await chainOf('layer-chain-1', handle.firstExecutionRunId);
    const lengths = runs.map((events) => events.length);
    console.log(`layer-chain-1: ${runs.length} runs, history lengths ${lengths.join(', ')}; children ${runs.map(targetStarts).join(', ')}; upserts ${runs.map(upserts).join(', ')}`);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    for (const length of lengths) expect(length).toBeLessThan(limit);
    // Each target ran in exactly one run of the chain, once.
    expect(runs.reduce((n, events) => n + targetStarts(events), 0)).toBe(200);

    // Every topic has exactly one insight, and the record counts the whole run.
    const insights = await store().listInsights({ layerRunId: 'layer-chain-1' });
    expect(insights.map((i) => i.topic).sort()).toEqual([...topics].sort());
    expect(record).toMatchObject({ id: 'layer-chain-1', status: 'success', targetsMatched: 200, targetsProcessed: 200, insightsCreated: 200, targetsFailed: 0 });
    const stored = await store().getLayerRun('layer-chain-1');
    expect(stored).toEqual(record);
    expect(renderLayerRun(record!).join('\n')).toContain('targets: 200 matched, 200 processed, 0 skipped, 0 failed · insights created: 200');

    // The status query of the last run shows the whole chain: its spending, and the earlier runs' targets as counts.
    const status = await testEnv.client.workflow.getHandle('layer-chain-1').query<RunStatus>('status');
    expect(status).toMatchObject({ kind: 'layer', state: 'completed', costUsd: record!.costUsd, tokens: record!.tokens });
    expect((status.earlier?.done ?? 0) + (status.tasks?.length ?? 0)).toBe(200);
    expect(status.earlier?.runs).toBe(runs.length - 1);
    const shown = await runDex(['status', 'layer-chain-1'], { env: testEnv.cliEnv() });
    expect(shown.stdout).toContain('targets: 200 matched, 200 processed');

    // Upserts: a few per run of the chain (its start, its phases, its end), never one per target.
    const perTopic = runs.reduce((n, events) => n + upserts(events), 0) / topics.length;
    const eventsPerTopic = lengths.reduce((a, b) => a + b, 0) / topics.length;
    console.log(`layer-chain-1: ${eventsPerTopic.toFixed(2)} events and ${perTopic.toFixed(3)} upserts per topic over the chain`);
    for (const events of runs) expect(upserts(events)).toBeLessThanOrEqual(8);
  }, 600_000);

  it('with a global part: each run starts one target, and the last reduces every run\'s insights from the store', async () => {
    const topics = ['g-a', 'g-b', 'g-c', 'g-d'];
    const { input } = await layerOver('chainglobal', topics, 2, {
      yaml: `  - name: synth
    type: synthesize_to_global
    params: { prompt_template: prompts/global.md }
`,
      cassette: [insightLine('global', 'synth')],
    });
    // A limit no run stays under: each run starts one target (a run always starts one) and hands on the rest.
    const handle = await testEnv.start('layerWorkflow', 'layer-chainglobal-1', { ...input, historyLimit: 1 });
    testEnv.recordHistory('layer-chainglobal-1', 'layer-workflow-continue-as-new.json');
    const { result: record } = await runEnd<LayerRunRecord>(handle);
    const runs = await chainOf('layer-chainglobal-1', handle.firstExecutionRunId);
    expect(runs.map(targetStarts)).toEqual([1, 1, 1, 2]);
    expect(record).toMatchObject({ status: 'success', targetsMatched: 4, insightsCreated: 5 });
    const prompt = JSON.stringify((await testEnv.worker.deps.store.getMessage('layer-chainglobal-1/global/synth', 0))?.content);
    for (const t of topics) expect(prompt).toContain(`${t} keeps coming back to deadlines`);
  }, 300_000);
});

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEnd } from '../../../client/run/follow-run';
import { buildLayerInput } from '../../../client/requests/layer-request';
import { storeLayerTemplates } from '../../../client/requests/layer-templates';
import { readSettings } from '../../../client/settings';
import type { LayerRunRecord } from '../../../core/layer/layer-types';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { insightLine, layerDir, messagesFor } from '../../support/plans/layer-fixtures';
import { mostTargetsAtOnce, targetsStarted } from '../../support/plans/layer-targets';

// docs/layers.md#running-targets-at-once
const testEnv = useDexEnvironment({ server: 'dev', queue: 'dex-it-layer-lanes' });

/** The most targets the run had running at once, read from its history. */
async function mostAtOnce(workflowId: string): Promise<number> {
  const { events } = await testEnv.client.workflow.getHandle(workflowId).fetchHistory();
  return mostTargetsAtOnce(events ?? []);
}

describe('a layer with concurrency: 3 over seven topics', () => {
  it('runs three targets at once, never more, and starts them in the targets\' order', async () => {
    const topics = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7'];
    await testEnv.worker.deps.store.layers.importMessages(messagesFor(topics));
    const layer = layerDir({ name: 'lanes', topics, cassette: topics.map((t) => insightLine(t, 'reflect')), head: 'concurrency: 3' });
    const input = buildLayerInput(layer.file, { llm: `replay:${layer.cassette}` }, { ...readSettings({}), hostQueue: testEnv.worker.hostQueue });
    expect(input.layer.concurrency).toBe(3);
    const handle = await testEnv.start('layerWorkflow', 'layer-lanes-1', input);
    const { result: record } = await runEnd<LayerRunRecord>(handle);

    expect(record).toMatchObject({ status: 'success', targetsProcessed: 7, insightsCreated: 7 });
    expect(await mostAtOnce('layer-lanes-1')).toBe(3);
    const insights = await testEnv.worker.deps.store.layers.listInsights({ layerRunId: 'layer-lanes-1' });
    expect(insights.map((i) => i.topic).sort()).toEqual(topics);
    // Targets start in their order, each as one activity of the run: no child workflow.
    const { events } = await handle.fetchHistory();
    expect(targetsStarted(events ?? [])).toEqual(topics);
    expect((events ?? []).filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)).toEqual([]);
  });

  it('without concurrency, runs one target at a time', async () => {
    const topics = ['s1', 's2', 's3'];
    await testEnv.worker.deps.store.layers.importMessages(messagesFor(topics));
    const layer = layerDir({ name: 'single', topics, cassette: topics.map((t) => insightLine(t, 'reflect')) });
    const input = buildLayerInput(layer.file, { llm: `replay:${layer.cassette}` }, { ...readSettings({}), hostQueue: testEnv.worker.hostQueue });
    await runEnd<LayerRunRecord>(await testEnv.start('layerWorkflow', 'layer-single-1', input));
    expect(await mostAtOnce('layer-single-1')).toBe(1);
  });

  it('with target_workflows: true, runs each target in a child workflow of its own, three at once', async () => {
    const topics = ['w1', 'w2', 'w3', 'w4'];
    await testEnv.worker.deps.store.layers.importMessages(messagesFor(topics));
    const layer = layerDir({ name: 'children', topics, cassette: topics.map((t) => insightLine(t, 'reflect')), head: 'concurrency: 3\ntarget_workflows: true' });
    const input = buildLayerInput(layer.file, { llm: `replay:${layer.cassette}` }, { ...readSettings({}), hostQueue: testEnv.worker.hostQueue });
    expect(input.layer.targetWorkflows).toBe(true);
    const handle = await testEnv.start('layerWorkflow', 'layer-children-1', input);
    testEnv.recordHistory('layer-children-1/w1', 'layer-target-workflow-child.json');
    const { result: record } = await runEnd<LayerRunRecord>(handle);
    expect(record).toMatchObject({ status: 'success', targetsProcessed: 4, insightsCreated: 4 });
    const { events } = await handle.fetchHistory();
    const children = (events ?? []).flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? []);
    expect(children).toEqual(topics.map((t) => `layer-children-1/${t}`));
    expect(mostTargetsAtOnce(events ?? [])).toBe(3);
    // Each child's history holds its target's steps, the model call among them.
    const child = await testEnv.client.workflow.getHandle('layer-children-1/w1').fetchHistory();
    const steps = (child.events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(steps).toContain('callLayerModel');
  });
});

describe("a layer's prompt templates", () => {
  it('are rendered as the run was started with them, from the store, even once the files are gone', async () => {
    const topics = ['tpl1', 'tpl2'];
    const store = testEnv.worker.deps.store;
    await store.layers.importMessages(messagesFor(topics));
    const layer = layerDir({ name: 'stored', topics, cassette: topics.map((t) => insightLine(t, 'reflect')) });
    const input = buildLayerInput(layer.file, { llm: `replay:${layer.cassette}` }, { ...readSettings({}), hostQueue: testEnv.worker.hostQueue });
    expect(Object.keys(input.templates ?? {})).toEqual([join(layer.dir, 'prompts', 'reflect.md')]);
    await storeLayerTemplates(store, input.templates!);
    rmSync(join(layer.dir, 'prompts'), { recursive: true });
    const { result: record } = await runEnd<LayerRunRecord>(await testEnv.start('layerWorkflow', 'layer-stored-1', input));
    expect(record).toMatchObject({ status: 'success', insightsCreated: 2 });
    // The prompt sent is the template's, rendered for the topic.
    const prompt = await store.getMessage('layer-stored-1/tpl1/reflect', 0);
    expect(JSON.stringify(prompt?.content)).toContain('Reflect on tpl1 for layer stored.');
  });

  it('without a stored copy (a run from before), are read from their files, and a missing one fails its node', async () => {
    const topics = ['old1'];
    await testEnv.worker.deps.store.layers.importMessages(messagesFor(topics));
    const layer = layerDir({ name: 'unstored', topics, cassette: topics.map((t) => insightLine(t, 'reflect')) });
    const { templates: _dropped, ...input } = buildLayerInput(layer.file, { llm: `replay:${layer.cassette}` }, { ...readSettings({}), hostQueue: testEnv.worker.hostQueue });
    rmSync(join(layer.dir, 'prompts'), { recursive: true });
    const end = await runEnd<LayerRunRecord>(await testEnv.start('layerWorkflow', 'layer-unstored-1', input));
    expect(end.state).toBe('failed');
    expect(end.error).toMatch(/prompt template .*reflect\.md/);
  });
});

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEnd } from '../../../client/run/follow-run';
import { buildLayerInput } from '../../../client/requests/layer-request';
import { readSettings } from '../../../client/settings';
import type { CassetteLine } from '../../../core/parsing/cassette';
import type { LayerRunRecord } from '../../../core/layer/layer-types';
import { costOf } from '../../../core/run/pricing';
import type { RunStatus } from '../../../core/run/run-types';
import { TEST_MODEL, usageTotals } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { runDex, type DexRun } from '../../support/env/dex-cli';
import { answerLine, insightLine, layerDir, messagesFor } from '../../support/plans/layer-fixtures';
import { targetModelCalls } from '../../support/plans/layer-targets';

// No fake Anthropic server: every layer answers from its own replay cassette.
const testEnv = useDexEnvironment({ server: 'dev', queue: 'dex-it-layer' });

const store = () => testEnv.worker.deps.store.layers;

/** Runs a layer file to its end on this file's worker; returns the record and the run's end state. */
async function runLayer(file: string, cassette: string, workflowId: string) {
  const input = buildLayerInput(file, { llm: `replay:${cassette}` }, { ...readSettings({}), hostQueue: testEnv.worker.hostQueue });
  const handle = await testEnv.start('layerWorkflow', workflowId, input);
  const end = await runEnd<LayerRunRecord>(handle);
  expect(end.result).toBeDefined();
  return { end, record: end.result!, handle };
}

/** Five topics whose third answer is prose, not JSON; a repair answer for it waits at node `store`. */
function fiveTopics(prefix: string): { topics: string[]; answers: CassetteLine[]; repair: CassetteLine } {
  const topics = [1, 2, 3, 4, 5].map((i) => `${prefix}${i}`);
  const answers = topics.map((t, i) => (i === 2 ? answerLine(t, 'reflect', 'I think the team is mostly worried about deadlines.') : insightLine(t, 'reflect')));
  return { topics, answers, repair: insightLine(topics[2], 'store') };
}

function costOfLines(lines: CassetteLine[]): number {
  return lines.reduce((sum, l) => sum + costOf(TEST_MODEL, usageTotals([l])), 0);
}

describe('layerWorkflow over five topics, one answer not JSON', () => {
  it('under strict: partial, four insights, the failing topic recorded with its node and error', async () => {
    const { topics, answers, repair } = fiveTopics('strict-');
    await store().importMessages(messagesFor(topics));
    const layer = layerDir({ name: 'strict', topics, parse: 'strict', cassette: [...answers, repair] });
    const { end, record } = await runLayer(layer.file, layer.cassette, 'layer-strict-1');

    expect(end.state).toBe('completed');
    expect(record.status).toBe('partial');
    expect(record.insightsCreated).toBe(4);
    expect(await store().listInsights({ layerRunId: 'layer-strict-1' })).toHaveLength(4);
    expect(record).toMatchObject({ targetsMatched: 5, targetsProcessed: 5, targetsFailed: 1, targetsSkipped: 0 });
    expect(record.errors).toEqual([{ target: 'strict-3', node: 'store', error: expect.stringContaining('not insight JSON') }]);
    // No repair call under strict: the tokens are exactly the five answers'.
    expect(record.tokens).toEqual(usageTotals(answers));
  });

  it('under repair: success with five insights; token totals and cost equal the cassette usage priced by the table', async () => {
    const { topics, answers, repair } = fiveTopics('repair-');
    await store().importMessages(messagesFor(topics));
    const layer = layerDir({ name: 'repair', topics, parse: 'repair', cassette: [...answers, repair] });
    const { end, record, handle } = await runLayer(layer.file, layer.cassette, 'layer-repair-1');
    // Replayed by test/workflows/replay.test.ts: this run, and its third target's child.
    testEnv.recordHistory('layer-repair-1', 'layer-workflow-repair.json');

    expect(end.state).toBe('completed');
    expect(record.status).toBe('success');
    expect(record.insightsCreated).toBe(5);
    const insights = await store().listInsights({ layerRunId: 'layer-repair-1' });
    expect(insights.map((i) => i.topic).sort()).toEqual(topics);
    expect(insights.every((i) => !i.unparsed && i.confidence === 0.8 && i.valence.concern === 0.6)).toBe(true);
    // Each insight spent its topic's input tokens × cost_per_token (0.001), the repaired one both calls'; strength = spent × 1.5.
    for (const i of insights) {
      const read = (await targetModelCalls(testEnv.worker.deps.store, 'layer-repair-1', i.topic)).reduce((n, c) => n + c.input + c.cacheRead + c.cacheWrite, 0);
      expect(i.salienceSpent).toBeCloseTo(read * 0.001, 12);
      expect(i.strength).toBeCloseTo(i.salienceSpent * 1.5, 12);
    }

    const all = [...answers, repair];
    const totals = usageTotals(all);
    expect(record.tokens).toEqual(totals);
    expect(record.tokensIn).toBe(totals.input + totals.cacheRead + totals.cacheWrite);
    expect(record.tokensOut).toBe(totals.output);
    expect(record.tokensTotal).toBe(record.tokensIn + record.tokensOut);
    expect(record.costUsd).toBeCloseTo(costOfLines(all), 12);
    expect(record.costUsd).toBeCloseTo(costOf(TEST_MODEL, totals), 12);
    expect(record.layerHash).toMatch(/^[0-9a-f]{64}$/);
    // The prose answer got one repair call, made at the store node (a layer's cassette phase is the node: docs/interfaces.md).
    expect((await targetModelCalls(testEnv.worker.deps.store, 'layer-repair-1', 'repair-3')).map((c) => c.phase)).toEqual(['reflect', 'store']);

    // The record is stored, and the status query answers as a layer.
    expect(await store().getLayerRun('layer-repair-1')).toEqual(record);
    const status = await handle.query<RunStatus>('status');
    expect(status).toMatchObject({ kind: 'layer', state: 'completed', costUsd: record.costUsd });
    expect(status.tasks).toHaveLength(5);
  });
});

describe('layer run statuses', () => {
  it('topics with no messages give a dry run', async () => {
    const layer = layerDir({ name: 'quiet', topics: ['quiet-1', 'quiet-2'], cassette: [insightLine('quiet-1', 'reflect')] });
    const { end, record } = await runLayer(layer.file, layer.cassette, 'layer-quiet-1');
    expect(end.state).toBe('completed');
    expect(record.status).toBe('dry');
    expect(record.insightsCreated).toBe(0);
    expect(record.skipped).toEqual([
      { target: 'quiet-1', reason: 'no messages in the last 48h' },
      { target: 'quiet-2', reason: 'no messages in the last 48h' },
    ]);
    expect(record.tokensTotal).toBe(0);
  });

  it('a layer whose every target fails is failed, each error naming its node', async () => {
    const topics = ['doomed-1', 'doomed-2'];
    await store().importMessages(messagesFor(topics));
    // The cassette answers another topic only: each target's model call finds no line.
    const layer = layerDir({ name: 'doomed', topics, cassette: [insightLine('elsewhere', 'reflect')] });
    const { end, record } = await runLayer(layer.file, layer.cassette, 'layer-doomed-1');
    expect(end.state).toBe('failed');
    expect(end.error).toContain('every target failed');
    expect(record.status).toBe('failed');
    expect(record.errors.map((e) => [e.target, e.node])).toEqual([
      ['doomed-1', 'reflect'],
      ['doomed-2', 'reflect'],
    ]);
    expect(record.errors[0].error).toContain('no unused line for task "doomed-1" phase "reflect"');
    expect((await store().getLayerRun('layer-doomed-1'))?.status).toBe('failed');
  });

  it('a topic that keeps failing spends its salience and is then skipped with that reason', async () => {
    // One message earns one unit of salience. The call reserves its estimated prompt × 0.01, settles
    // to the tokens the model read (more than one unit's worth), and the failure refunds half.
    await store().importMessages(messagesFor(['tired'], 1));
    const answer = answerLine('tired', 'reflect', 'no JSON here');
    const layer = layerDir({ name: 'tired', topics: ['tired'], parse: 'strict', cassette: [answer], salience: 'salience: { cost_per_token: 0.01 }' });
    const first = await runLayer(layer.file, layer.cassette, 'layer-tired-1');
    expect(first.record.errors.map((e) => e.node)).toEqual(['store']);
    const u = answer.response.usage;
    const spent = (u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0)) * 0.01;
    expect(await store().salienceBalance('tired')).toBeCloseTo(1 - spent / 2, 12);
    expect(await store().salienceBalance('tired')).toBeLessThan(0);

    const second = await runLayer(layer.file, layer.cassette, 'layer-tired-2');
    expect(second.record.skipped).toEqual([{ target: 'tired', reason: expect.stringMatching(/^salience budget spent: balance -[\d.]+ < reservation [\d.]+ for node "reflect" \(~\d+ prompt tokens × 0\.01\)$/) }]);
    expect(second.record.status).toBe('dry');
    expect(second.record.tokensTotal).toBe(0);
    expect(await store().salienceBalance('tired')).toBeCloseTo(1 - spent / 2, 12);
  });

  it('max_context_tokens trims the oldest messages first and records it', async () => {
    await store().importMessages(messagesFor(['busy'], 10));
    const layer = layerDir({ name: 'busy', topics: ['busy'], cassette: [insightLine('busy', 'reflect')] });
    const yaml = readFileSync(layer.file, 'utf8').replace('limit_per_channel: 50', 'limit_per_channel: 50, max_context_tokens: 80');
    writeFileSync(layer.file, yaml);
    const { record } = await runLayer(layer.file, layer.cassette, 'layer-busy-1');
    expect(record.status).toBe('success');
    expect(record.messagesTrimmed).toBeGreaterThan(0);
    expect(record.contextTokens).toBeLessThanOrEqual(80);
    const prompt = JSON.stringify((await testEnv.worker.deps.store.getMessage('layer-busy-1/busy/reflect', 0))?.content);
    expect(prompt).toContain('message 9 about busy');
    expect(prompt).not.toContain('message 0 about busy');
  });

  it('a global part reduces the targets, synthesizes a global insight, prints it and rewrites the self-concept', async () => {
    const topics = ['g-1', 'g-2'];
    await store().importMessages(messagesFor(topics));
    const layer = layerDir({
      name: 'nightly',
      topics,
      cassette: [insightLine('g-1', 'reflect'), insightLine('g-2', 'reflect'), insightLine('global', 'synth')],
      extraYaml: `  - name: combine
    type: reduce
  - name: synth
    type: synthesize_to_global
    params: { prompt_template: prompts/reflect.md }
  - name: show
    type: output
  - name: self
    type: update_self_concept
    params: { document_path: out/self-concept.md }
`,
    });
    const { record } = await runLayer(layer.file, layer.cassette, 'layer-nightly-1');
    expect(record.status).toBe('success');
    expect(record.insightsCreated).toBe(3);
    expect(await store().listInsights({ topic: 'global', layerRunId: 'layer-nightly-1' })).toHaveLength(1);
    const prompt = JSON.stringify((await testEnv.worker.deps.store.getMessage('layer-nightly-1/global/synth', 0))?.content);
    expect(prompt).toContain('g-1 keeps coming back to deadlines');
    expect(record.outputs).toEqual([{ target: 'global', node: 'show', text: expect.stringContaining('global keeps coming back') }]);
    expect(readFileSync(join(layer.dir, 'out', 'self-concept.md'), 'utf8')).toContain('global keeps coming back');
  });
});

describe('the dex CLI over a layer run', () => {
  /** The real `dex` binary against this file's server and worker. */
  function dex(...args: string[]): Promise<DexRun> {
    const { env, worker } = testEnv;
    const vars = { TEMPORAL_ADDRESS: env.address, DEX_HOME: worker.dexHome, DEX_TASK_QUEUE: worker.taskQueue, DEX_HOST_QUEUE: worker.hostQueue, NODE_OPTIONS: undefined };
    return runDex(args, { env: vars });
  }

  it('dex layer runs the file and prints the record; dex status ID renders it', async () => {
    await store().importMessages(messagesFor(['cli-1']));
    const layer = layerDir({ name: 'cli', topics: ['cli-1'], cassette: [insightLine('cli-1', 'reflect')] });
    const run = await dex('layer', layer.file, '--llm', `replay:${layer.cassette}`, '--json');
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as { workflowId: string; state: string; result: LayerRunRecord };
    expect(printed).toMatchObject({ workflowId: 'layer-cli-1', state: 'completed', result: { status: 'success', insightsCreated: 1 } });

    const status = await dex('status', 'layer-cli-1');
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('layer-cli-1: completed');
    expect(status.stdout).toMatch(/layer cli \([0-9a-f]{12}\): success/);
    expect(status.stdout).toContain('targets: 1 matched, 1 processed, 0 skipped, 0 failed · insights created: 1');
  });
});

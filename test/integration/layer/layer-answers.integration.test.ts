import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runEnd } from '../../../client/run/follow-run';
import { buildLayerInput } from '../../../client/requests/layer-request';
import { readSettings } from '../../../client/settings';
import type { CassetteLine } from '../../../core/parsing/cassette';
import { promptTokens } from '../../../core/layer/layer-budget';
import { formatMessages } from '../../../core/layer/layer-context';
import type { LayerRunRecord } from '../../../core/layer/layer-types';
import { renderPrompt } from '../../../core/layer/prompt-template';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { answerLine, insightLine, layerDir, messagesFor, REFLECT_TEMPLATE } from '../../support/plans/layer-fixtures';
import { targetModelCalls } from '../../support/plans/layer-targets';

// Empty answers, salience settled on the tokens read, and prompt budgets, over replay cassettes.
const testEnv = useDexEnvironment({ server: 'dev', queue: 'dex-it-layer-answers' });

const store = () => testEnv.worker.deps.store.layers;
const modelCalls = (runId: string, topic: string) => targetModelCalls(testEnv.worker.deps.store, runId, topic);

async function runLayer(file: string, cassette: string, workflowId: string): Promise<LayerRunRecord> {
  const input = buildLayerInput(file, { llm: `replay:${cassette}` }, { ...readSettings({}), hostQueue: testEnv.worker.hostQueue });
  const end = await runEnd<LayerRunRecord>(await testEnv.start('layerWorkflow', workflowId, input));
  expect(end.result).toBeDefined();
  return end.result!;
}

/** An answer with no content blocks at all, as the API may send (stored as one empty text block). */
function noContentLine(topic: string, phase: string): CassetteLine {
  const line = answerLine(topic, phase, '');
  return { ...line, response: { ...line.response, content: [] } };
}

describe('an empty answer fails its topic at the store node, whatever the parse mode', () => {
  it.each(['strict', 'graceful', 'repair'])('under %s: partial, no insight for the empty answers, no repair call', async (parse) => {
    const topics = [`empty-${parse}-ok`, `empty-${parse}-blank`, `empty-${parse}-none`];
    await store().importMessages(messagesFor(topics));
    // A repair answer waits for each empty topic: were a repair call made, it would succeed and show.
    const cassette = [insightLine(topics[0], 'reflect'), answerLine(topics[1], 'reflect', ' \n\t '), noContentLine(topics[2], 'reflect'), insightLine(topics[1], 'store'), insightLine(topics[2], 'store')];
    const layer = layerDir({ name: `empty-${parse}`, topics, parse, cassette });
    const runId = `layer-empty-${parse}-1`;
    const record = await runLayer(layer.file, layer.cassette, runId);

    expect(record.status).toBe('partial');
    expect(record.errors).toEqual([
      { target: topics[1], node: 'store', error: "the model's answer is empty" },
      { target: topics[2], node: 'store', error: "the model's answer is empty" },
    ]);
    expect((await store().listInsights({ layerRunId: runId })).map((i) => i.topic)).toEqual([topics[0]]);
    expect((await modelCalls(runId, topics[1])).map((c) => c.phase)).toEqual(['reflect']);
    expect((await modelCalls(runId, topics[2])).map((c) => c.phase)).toEqual(['reflect']);
    // A resume asks the model again: it goes on from the node that gave the empty answer.
    expect(record.resumable.map((p) => [p.target, p.node])).toEqual([
      [topics[1], 'reflect'],
      [topics[2], 'reflect'],
    ]);
  });

  it('output with an empty answer fails rather than print nothing; every target empty: failed', async () => {
    await store().importMessages(messagesFor(['quiet-out']));
    const layer = layerDir({ name: 'emptyout', topics: ['quiet-out'], cassette: [answerLine('quiet-out', 'reflect', '')] });
    // The layer's store node gives way to an output node.
    writeFileSync(layer.file, readFileSync(layer.file, 'utf8').replace(/  - name: store\n[\s\S]*$/, '  - name: show\n    type: output\n'));
    const record = await runLayer(layer.file, layer.cassette, 'layer-emptyout-1');
    expect(record.status).toBe('failed');
    expect(record.errors).toEqual([{ target: 'quiet-out', node: 'show', error: "the model's answer is empty: nothing to print" }]);
    expect(record.outputs).toEqual([]);
  });
});

describe('salience: reserved on the estimated prompt, settled on the tokens the model read', () => {
  it("each topic's ledger entries for the run add up to its input tokens × cost_per_token", async () => {
    const topics = ['sal-1', 'sal-2', 'sal-3'];
    // Ten messages earn each topic ten units: enough for sal-2's repair call too.
    await store().importMessages(messagesFor(topics, 10));
    const cassette = [insightLine(topics[0], 'reflect'), answerLine(topics[1], 'reflect', 'prose, not JSON'), insightLine(topics[1], 'store'), insightLine(topics[2], 'reflect')];
    const layer = layerDir({ name: 'salience', topics, cassette, salience: 'salience: { cost_per_token: 0.002 }' });
    const runId = 'layer-salience-1';
    const record = await runLayer(layer.file, layer.cassette, runId);
    expect(record.errors).toEqual([]);
    expect(record.status).toBe('success');

    for (const topic of topics) {
      const calls = await modelCalls(runId, topic);
      const read = calls.reduce((n, c) => n + c.input + c.cacheRead + c.cacheWrite, 0);
      const entries = await store().salienceEntries(`${runId}/${topic}/`);
      // One reservation and one settlement per model call (sal-2's repair call too), as separate keyed entries.
      expect(entries.filter((e) => e.reason === `reserve:${runId}`)).toHaveLength(calls.length);
      expect(entries.filter((e) => e.reason === `settle:${runId}`)).toHaveLength(calls.length);
      expect(entries.every((e) => e.amount !== 0)).toBe(true);
      expect(entries.reduce((sum, e) => sum + e.amount, 0)).toBeCloseTo(-read * 0.002, 12);
      const [insight] = await store().listInsights({ topic, layerRunId: runId });
      expect(insight.salienceSpent).toBeCloseTo(read * 0.002, 12);
      expect(await store().salienceBalance(topic)).toBeCloseTo(10 - read * 0.002, 12);
    }
    expect((await modelCalls(runId, 'sal-2')).map((c) => c.phase)).toEqual(['reflect', 'store']);
  });
});

describe('prompt budgets', () => {
  /** The estimated tokens of the fixture template's prompt for `topic` of layer `layer` with these messages and no prior insight. */
  const promptOf = (layer: string, topic: string, messages: ReturnType<typeof messagesFor>) =>
    promptTokens(renderPrompt(REFLECT_TEMPLATE, { topic, layer, messages: formatMessages(messages), insights: '' }));

  it('trims a prompt over max_context_tokens oldest first; skips, named, a topic that cannot fit (no call, no salience)', async () => {
    const messages = messagesFor(['wide'], 10);
    await store().importMessages(messages);
    const limit = promptOf('budget', 'wide', messages) - 20;
    const layer = layerDir({ name: 'budget', topics: ['wide'], cassette: [insightLine('wide', 'reflect')] });
    writeFileSync(layer.file, readFileSync(layer.file, 'utf8').replace('max_tokens: 400', `max_tokens: 400, max_context_tokens: ${limit}`));
    const trimmed = await runLayer(layer.file, layer.cassette, 'layer-budget-1');
    expect(trimmed.status).toBe('success');
    expect(trimmed.messagesTrimmed).toBeGreaterThan(0);
    expect(trimmed.promptTokens).toBeLessThanOrEqual(limit);
    const prompt = ((await testEnv.worker.deps.store.getMessage('layer-budget-1/wide/reflect', 0))?.content as { text: string }[])[0].text;
    expect(promptTokens(prompt)).toBe(trimmed.promptTokens);
    expect(prompt).toContain('message 9 about wide');
    expect(prompt).not.toContain('message 0 about wide');

    // Nothing may be trimmed: the same prompt cannot fit.
    writeFileSync(layer.file, readFileSync(layer.file, 'utf8').replace('nodes:', 'context: { trim: [] }\nnodes:'));
    const skipped = await runLayer(layer.file, layer.cassette, 'layer-budget-2');
    expect(skipped.status).toBe('dry');
    // The prompt now also holds the insight the first run made.
    const [{ target, reason }] = skipped.skipped;
    expect(target).toBe('wide');
    const needs = /^prompt of node "reflect" needs ~(\d+) tokens with nothing to trim \(trim: \[\]\), over its budget of (\d+) \(max_context_tokens (\d+)\)$/.exec(reason);
    expect(needs, reason).not.toBeNull();
    expect(Number(needs![1])).toBeGreaterThan(promptOf('budget', 'wide', messages));
    expect([Number(needs![2]), Number(needs![3])]).toEqual([limit, limit]);
    expect(await modelCalls('layer-budget-2', 'wide')).toEqual([]);
    expect(await store().salienceEntries('layer-budget-2/')).toEqual([]);
  });

  it('skips, named, a topic whose prompt would take the run past max_tokens_per_run', async () => {
    const [first, second] = [messagesFor(['run-a']), messagesFor(['run-b'])];
    await store().importMessages([...first, ...second]);
    const budget = promptOf('runbudget', 'run-a', first) + promptOf('runbudget', 'run-b', second) - 1;
    const layer = layerDir({ name: 'runbudget', topics: ['run-a', 'run-b'], cassette: [insightLine('run-a', 'reflect'), insightLine('run-b', 'reflect')] });
    writeFileSync(layer.file, readFileSync(layer.file, 'utf8').replace('nodes:', `context: { max_tokens_per_run: ${budget} }\nnodes:`));
    const record = await runLayer(layer.file, layer.cassette, 'layer-runbudget-1');
    expect(record.status).toBe('success');
    expect(record.insightsCreated).toBe(1);
    expect(record.promptTokens).toBe(promptOf('runbudget', 'run-a', first));
    expect(record.skipped).toEqual([
      { target: 'run-b', reason: `prompt of node "reflect" (~${promptOf('runbudget', 'run-b', second)} tokens) would take the run past max_tokens_per_run ${budget}: ${budget - promptOf('runbudget', 'run-a', first)} left` },
    ]);
    expect(await modelCalls('layer-runbudget-1', 'run-b')).toEqual([]);
  });
});

describe('unparsed insights', () => {
  it('are kept flagged, and left out of later prompts and of the global part unless a node asks for them', async () => {
    const topics = ['loose-1', 'loose-2'];
    await store().importMessages(messagesFor(topics));
    const prose = 'the team seems tired of moving dates';
    const globalPart = `  - name: combine\n    type: reduce\n  - name: synth\n    type: synthesize_to_global\n    params: { prompt_template: prompts/reflect.md }\n`;
    const cassette = [answerLine(topics[0], 'reflect', prose), insightLine(topics[1], 'reflect'), insightLine('global', 'synth'), insightLine(topics[0], 'reflect'), insightLine(topics[1], 'reflect'), insightLine('global', 'synth')];
    const layer = layerDir({ name: 'loose', topics, parse: 'graceful', cassette, extraYaml: globalPart });
    await runLayer(layer.file, layer.cassette, 'layer-loose-1');
    expect((await store().listInsights({ topic: topics[0] })).map((i) => [i.content, i.unparsed])).toEqual([[prose, true]]);
    const promptText = async (id: string) => JSON.stringify((await testEnv.worker.deps.store.getMessage(id, 0))?.content);
    // The global part's reduce leaves the unparsed insight out.
    expect(await promptText('layer-loose-1/global/synth')).toContain('loose-2 keeps coming back to deadlines');
    expect(await promptText('layer-loose-1/global/synth')).not.toContain(prose);

    // A second run: fetch_insights leaves it out by default …
    await runLayer(layer.file, layer.cassette, 'layer-loose-2');
    expect(await promptText('layer-loose-2/loose-1/reflect')).not.toContain(prose);
    // … and with include_unparsed: true takes it in, marked.
    writeFileSync(layer.file, readFileSync(layer.file, 'utf8').replace('max_per_topic: 3', 'max_per_topic: 3, include_unparsed: true'));
    const third = layerDir({ name: 'loose', topics, cassette: [insightLine(topics[0], 'reflect'), insightLine(topics[1], 'reflect'), insightLine('global', 'synth')] });
    await runLayer(layer.file, third.cassette, 'layer-loose-3');
    expect(await promptText('layer-loose-3/loose-1/reflect')).toContain(`(unparsed) (reflection, confidence 0.5, importance 0.5) ${prose}`);
  });
});

import { describe, expect, it } from 'vitest';
import { layerStore } from '../../../store/sqlite/layer-store';
import { Store } from '../../../store/sqlite/sqlite-store';
import { renderRunEnd } from '../../../client/render/render-run-end';
import { DEFAULT_NUMBERS, parseInsight } from '../../../core/layer/insight-parse';
import { estimateTokens, formatMessage, trimOldestToFit } from '../../../core/layer/layer-context';
import { InvalidInput } from '../../../core/run/invalid-input';
import { parseLayerFile } from '../../../core/parsing/layer-file';
import { buildLayerRunRecord, emptyTargetResult, layerRunStatus, splitNodes } from '../../../core/layer/layer-run';
import type { LayerInput, LayerTargetResult } from '../../../core/layer/layer-types';
import { batchSummary, inBatches, targetsPerActivity } from '../../../core/layer/target-batches';
import { recordForResult, RESULT_LIST_LIMIT } from '../../../core/layer/record-lists';
import { renderLayerRun } from '../../../client/render/render-layer-run';
import { messagesFor } from '../../support/plans/layer-fixtures';

const asIs = (path: string) => `/abs/${path}`;

describe('parseLayerFile', () => {
  it('fills the documented defaults and resolves paths', () => {
    const spec = parseLayerFile(
      `name: nightly\ntargets: { select: { lookback_hours: 12 } }\nnodes:\n  - { name: f, type: fetch_messages }\n  - { name: i, type: fetch_insights }\n  - { name: r, type: llm_call, params: { prompt_template: p.md } }\n  - { name: s, type: store_insight, params: { category: c } }\n`,
      'nightly.layer.yaml',
      asIs,
    );
    expect(spec).toEqual({
      name: 'nightly',
      targets: { select: { lookbackHours: 12, minMessages: 1 } },
      salience: { costPerToken: 0.001, refund: 0.5 },
      context: { trim: ['messages', 'insights'] },
      nodes: [
        { name: 'f', type: 'fetch_messages', params: { lookbackHours: 24, limitPerChannel: 50 } },
        { name: 'i', type: 'fetch_insights', params: { retrievalProfile: 'balanced', maxPerTopic: 5, includeUnparsed: false } },
        { name: 'r', type: 'llm_call', params: { promptTemplate: '/abs/p.md', maxTokens: 500, maxContextTokens: 150_000 } },
        { name: 's', type: 'store_insight', params: { category: 'c', parse: 'repair' } },
      ],
    });
  });

  it('names the node of a duplicate name and of a wrong param type', () => {
    const twice = 'name: x\ntargets: [a]\nnodes:\n  - { name: f, type: fetch_messages }\n  - { name: f, type: fetch_insights }\n';
    expect(() => parseLayerFile(twice, 'x', asIs)).toThrow('node "f": the name is used twice');
    const wrong = 'name: x\ntargets: [a]\nnodes:\n  - { name: f, type: fetch_messages, params: { lookback_hours: soon } }\n';
    expect(() => parseLayerFile(wrong, 'x', asIs)).toThrow(/node "f": params\.lookback_hours must be number/);
  });

  it.each([
    ['a YAML syntax error, without its code frame', 'nodes:\n  - { name: f, type: fetch_messages\n', 'x:5:1: not valid YAML: Flow map in block collection must be sufficiently indented and end with a }'],
    ['an alias with no anchor', 'nodes: *all\n', 'x:3:8: not valid YAML: Unresolved alias (the anchor must be set before the alias): all'],
    ['a duplicate name', 'nodes:\n  - { name: f, type: fetch_messages }\n  - { name: f, type: fetch_insights }\n', 'x:5:13: node "f": the name is used twice'],
    ['an unknown type', 'nodes:\n  - name: f\n    type: ponder\n', /^x:5:11: node "f": unknown node type "ponder"; known types: fetch_messages, /],
    ['a wrong param', 'nodes:\n  - name: f\n    type: fetch_messages\n    params:\n      lookback_hours: soon\n', 'x:7:23: node "f": params.lookback_hours must be number'],
    ['an unknown key', 'nodes:\n  - name: f\n    type: fetch_messages\n    colour: red\n', 'x:6:5: node "f": unknown key "colour"'],
    ['a store before any answer', 'nodes:\n  - name: k\n    type: store_insight\n    params: { category: c }\n', 'x:4:5: node "k" (store_insight) needs an llm_call or synthesize_to_global before it'],
    ['a trim kind dex does not know', 'context: { trim: [replies] }\nnodes:\n  - { name: f, type: fetch_messages }\n', /^x:3:19: context\.trim\.0 must be equal to one of the allowed values/],
  ])('gives %s in one line: the file, the line and column, the node', (_what, nodes, message) => {
    const text = `name: x\ntargets: [a]\n${nodes}`;
    expect(() => parseLayerFile(text, 'x', asIs)).toThrow(typeof message === 'string' ? new InvalidInput(message) : message);
  });

  it('reads the context budgets, include_unparsed and salience.cost_per_token', () => {
    const text =
      'name: x\ntargets: [a]\nsalience: { cost_per_token: 0.002, refund: 0.25 }\ncontext: { max_tokens_per_topic: 900, max_tokens_per_run: 5000, trim: [insights] }\n' +
      'nodes:\n  - { name: i, type: fetch_insights, params: { include_unparsed: true } }\n  - { name: r, type: llm_call, params: { prompt_template: p.md, max_context_tokens: 700 } }\n' +
      '  - { name: c, type: reduce, params: { include_unparsed: true } }\n';
    const spec = parseLayerFile(text, 'x', asIs);
    expect(spec.salience).toEqual({ costPerToken: 0.002, refund: 0.25 });
    expect(spec.context).toEqual({ maxTokensPerTopic: 900, maxTokensPerRun: 5000, trim: ['insights'] });
    expect(spec.nodes.map((n) => n.params)).toEqual([
      { retrievalProfile: 'balanced', maxPerTopic: 5, includeUnparsed: true },
      { promptTemplate: '/abs/p.md', maxTokens: 500, maxContextTokens: 700 },
      { includeUnparsed: true },
    ]);
  });

  it('reads concurrency, and refuses it above 1 with a run-wide token budget, which counts targets one after another', () => {
    const nodes = 'nodes:\n  - { name: f, type: fetch_messages }\n';
    expect(parseLayerFile(`name: x\ntargets: [a]\nconcurrency: 4\n${nodes}`, 'x', asIs).concurrency).toBe(4);
    expect(parseLayerFile(`name: x\ntargets: [a]\n${nodes}`, 'x', asIs).concurrency).toBeUndefined();
    expect(parseLayerFile(`name: x\ntargets: [a]\nconcurrency: 1\ncontext: { max_tokens_per_run: 9 }\n${nodes}`, 'x', asIs).concurrency).toBeUndefined();
    expect(() => parseLayerFile(`name: x\ntargets: [a]\nconcurrency: 2\ncontext: { max_tokens_per_run: 9 }\n${nodes}`, 'x', asIs)).toThrow(
      /^x:3:14: concurrency 2 cannot be combined with context\.max_tokens_per_run/,
    );
    expect(() => parseLayerFile(`name: x\ntargets: [a]\nconcurrency: 0\n${nodes}`, 'x', asIs)).toThrow(/^x:3:14: concurrency must be >= 1/);
  });

  it('refuses the flat salience.cost by name, at its place, saying what replaced it', () => {
    const text = 'name: x\ntargets: [a]\nsalience: { cost: 1 }\nnodes:\n  - { name: f, type: fetch_messages }\n';
    expect(() => parseLayerFile(text, 'x', asIs)).toThrow(/^x:3:19: salience\.cost is no longer read: .*salience\.cost_per_token \(default 0\.001/);
  });

  it('places a path the resolver refuses at its param', () => {
    const refuse = (path: string) => {
      throw new InvalidInput(`prompt template not found: /abs/${path}`);
    };
    const text = 'name: x\ntargets: [a]\nnodes:\n  - name: r\n    type: llm_call\n    params:\n      prompt_template: gone.md\n';
    expect(() => parseLayerFile(text, 'x', refuse)).toThrow(new InvalidInput('x:7:24: node "r": prompt template not found: /abs/gone.md'));
  });
});

describe('parseInsight', () => {
  it('reads the JSON in a fenced block, clamping numbers to 0..1', () => {
    const text = 'Thoughts.\n```json\n{"content":"c","confidence":1.7,"importance":0.2,"valence":{"joy":0.4}}\n```';
    expect(parseInsight(text)).toEqual({ ...DEFAULT_NUMBERS, content: 'c', confidence: 1, importance: 0.2, valence: { ...DEFAULT_NUMBERS.valence, joy: 0.4 } });
  });

  it('finds none in prose or in JSON without content', () => {
    expect(parseInsight('The team worries about deadlines.')).toBeNull();
    expect(parseInsight('{"confidence":0.9}')).toBeNull();
  });
});

describe('trimOldestToFit', () => {
  it('keeps the newest messages that fit in the token budget, oldest first', () => {
    const messages = messagesFor(['t'], 6);
    const per = estimateTokens(formatMessage(messages[0]) + '\n');
    const fit = trimOldestToFit(messages, per * 2 + 1);
    expect(fit.kept.map((m) => m.id)).toEqual(['t-m4', 't-m5']);
    expect(fit.trimmed).toBe(4);
    expect(trimOldestToFit(messages, undefined).trimmed).toBe(0);
  });
});

describe('layer run status and record', () => {
  const ok = (target: string, insights = 1): LayerTargetResult => ({ ...emptyTargetResult(target), insightIds: Array.from({ length: insights }, (_, i) => `${target}/${i}`) });
  const failed = (target: string): LayerTargetResult => ({ ...emptyTargetResult(target), status: 'failed', error: { node: 'n', message: 'boom' } });
  const skipped = (target: string): LayerTargetResult => ({ ...emptyTargetResult(target), status: 'skipped', reason: 'no messages' });

  it('is failed when no target succeeded, partial when some failed, dry with no insight, else success', () => {
    expect(layerRunStatus([failed('a'), failed('b')])).toBe('failed');
    expect(layerRunStatus([failed('a'), skipped('b')])).toBe('failed');
    expect(layerRunStatus([failed('a'), ok('b')])).toBe('partial');
    expect(layerRunStatus([ok('a', 0), skipped('b')])).toBe('dry');
    expect(layerRunStatus([])).toBe('dry');
    expect(layerRunStatus([ok('a')], failed('global'))).toBe('partial');
    expect(layerRunStatus([ok('a')])).toBe('success');
  });

  it('splits the nodes at the first reduce or synthesize_to_global', () => {
    const n = (name: string, type: string) => ({ name, type, params: {} }) as never;
    expect(splitNodes([n('f', 'fetch_messages'), n('r', 'reduce'), n('o', 'output')])).toEqual({ perTarget: [n('f', 'fetch_messages')], global: [n('r', 'reduce'), n('o', 'output')] });
  });

  it('renders for dex status', () => {
    const input = { layer: { name: 'nightly' }, hash: 'ab'.repeat(32), defaultModel: 'claude-sonnet-4-6' } as LayerInput;
    const record = buildLayerRunRecord({ id: 'layer-nightly-1', input, startedAt: 's', endedAt: 'e', targets: [ok('a'), failed('b'), skipped('c')] });
    const text = renderRunEnd('layerWorkflow', 'layer-nightly-1', { state: 'completed', result: record });
    expect(text).toContain('layer nightly (abababababab): partial');
    expect(text).toContain('targets: 3 matched, 2 processed, 1 skipped, 1 failed · insights created: 1');
    expect(text).toContain('error b at n: boom');
    expect(text).toContain('skipped c: no messages');
  });
});

describe('the layer store', () => {
  it('stores an insight once per id and spends salience once per key', () => {
    const store = Store.open(':memory:');
    const layers = layerStore(store);
    layers.importMessages(messagesFor(['t'], 2));
    const insight = { id: 'run/t/store', topic: 't', category: 'c', content: 'x', ...DEFAULT_NUMBERS, strength: 1, layerRunId: 'run', salienceSpent: 1, unparsed: false };
    expect(layers.putInsight(insight)).toBe(true);
    expect(layers.putInsight({ ...insight, content: 'y' })).toBe(false);
    expect(layers.listInsights({ topic: 't' }).map((i) => i.content)).toEqual(['x']);

    expect(layers.spendSalience('run/t/salience', 't', 1.5, 'attempt')).toEqual({ spent: true, balance: 0.5 });
    expect(layers.spendSalience('run/t/salience', 't', 1.5, 'attempt')).toEqual({ spent: true, balance: 0.5 });
    expect(layers.spendSalience('run2/t/salience', 't', 1.5, 'attempt')).toEqual({ spent: false, balance: 0.5 });
    store.close();
  });
});

describe('targets per activity (docs/layers.md#where-a-target-runs)', () => {
  it('is one up to 15 at once, one more per 8 lanes, at most 8', () => {
    expect([1, 3, 8, 15, 16, 24, 32, 63, 64].map(targetsPerActivity)).toEqual([1, 1, 1, 1, 2, 3, 4, 7, 8]);
  });

  it('groups targets in order, the last group the rest', () => {
    expect(inBatches(['a', 'b', 'c', 'd', 'e'], 2)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(inBatches([], 8)).toEqual([]);
  });

  it('names the targets of an activity in one short line', () => {
    expect(batchSummary(['a'], 'night')).toBe('target a of layer night');
    expect(batchSummary(['global'], 'night')).toBe('the global part of layer night');
    expect(batchSummary(['a', 'b'], 'night')).toBe('2 targets (a, b) of layer night');
    expect(batchSummary(['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8'], 'night')).toBe('8 targets (t1 … t8) of layer night');
  });
});

describe("a layer run's result (core/layer/record-lists.ts)", () => {
  const input = { layer: { name: 'night' }, hash: 'h', defaultModel: 'm' } as unknown as LayerInput;
  const many = (n: number, status: LayerTargetResult['status']) =>
    Array.from({ length: n }, (_, i) => ({ ...emptyTargetResult(`t${i}`), status, ...(status === 'skipped' ? { reason: 'no messages' } : { insightIds: [`t${i}/store`] }) }));

  it('keeps the first 200 of each list past 200 and says how many there were; the store keeps the whole record', () => {
    const full = buildLayerRunRecord({ id: 'layer-night-1', input, startedAt: 's', endedAt: 'e', targets: [...many(50_000, 'success'), ...many(300, 'skipped')] });
    const result = recordForResult(full);
    expect(result.targets).toHaveLength(RESULT_LIST_LIMIT);
    expect(result.skipped).toHaveLength(RESULT_LIST_LIMIT);
    expect(result.cut).toEqual({ targets: 50_300, skipped: 300 });
    expect(result.targetsMatched).toBe(50_300);
    expect(JSON.stringify(result).length).toBeLessThan(64_000);
    expect(JSON.stringify(full).length).toBeGreaterThan(1_500_000);
    expect(renderLayerRun(result)).toContain('… and 100 more skipped targets (300 in all, in the store\'s layer_runs record layer-night-1)');
  });

  it('leaves a record whose lists fit as it is', () => {
    const full = buildLayerRunRecord({ id: 'layer-night-2', input, startedAt: 's', endedAt: 'e', targets: many(3, 'success') });
    expect(recordForResult(full)).toBe(full);
  });
});

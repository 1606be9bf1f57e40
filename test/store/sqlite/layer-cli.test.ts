import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { layerStore } from '../../../store/sqlite/layer-store';
import { Store } from '../../../store/sqlite/sqlite-store';
import { DEFAULT_NUMBERS } from '../../../core/layer/insight-parse';
import { runDex, type DexRun } from '../../support/env/dex-cli';
import { layerDir, messagesFor } from '../../support/plans/layer-fixtures';

// The real `dex` binary, spawned. TEMPORAL_ADDRESS is a dead port: a command that got as far
// as connecting would exit 3, so exit 2 proves it stopped at the input check, and the local
// commands (messages, insights) prove they need no Temporal at all.

const root = resolve(__dirname, '..', '..', '..');

function dex(args: string[], dexHome: string, cwd = root): Promise<DexRun> {
  const env: NodeJS.ProcessEnv = { TEMPORAL_ADDRESS: '127.0.0.1:1', DEX_HOME: dexHome, ANTHROPIC_API_KEY: 'test-key', NODE_OPTIONS: undefined };
  return runDex(args, { env, cwd, timeoutMs: 60_000 });
}

const home = () => mkdtempSync(join(tmpdir(), 'dex-layer-cli-home-'));

/** A layer folder whose file has `broken` in place of its llm_call node. */
function brokenLayer(brokenNode: string): string {
  const { file } = layerDir({ name: 'broken', topics: ['a'], cassette: [] });
  const text = `name: broken\ntargets: [a]\nnodes:\n  - name: fetch\n    type: fetch_messages\n${brokenNode}`;
  writeFileSync(file, text);
  return file;
}

describe('dex layer checks the layer file before starting anything (exit 2 naming the node)', () => {
  it.each([
    ['an unknown node type', '  - name: think\n    type: ponder\n', /node "think": unknown node type "ponder"/],
    ['a missing template', '  - name: think\n    type: llm_call\n    params: { prompt_template: prompts/missing.md }\n', /node "think": prompt template not found: .*missing\.md/],
    ['a missing required param', '  - name: keep\n    type: llm_call\n    params: { max_tokens: 10 }\n', /node "keep": missing required param prompt_template/],
    ['a store with no answer to store', '  - name: keep\n    type: store_insight\n    params: { category: c }\n', /node "keep" \(store_insight\) needs an llm_call/],
  ])('%s', async (_what, node, message) => {
    const dexHome = home();
    const run = await dex(['layer', brokenLayer(node), '--llm', 'anthropic'], dexHome);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(readdirSync(dexHome)).toEqual([]);
  });

  it('--json reports the error as one JSON document', async () => {
    const run = await dex(['layer', brokenLayer('  - name: think\n    type: ponder\n'), '--json'], home());
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ exitCode: 2, error: expect.stringContaining('node "think"') });
  });
});

describe('dex messages import and dex insights list, on the local store', () => {
  it('imports messages once, credits salience, and rejects a bad line by its number', async () => {
    const dexHome = home();
    const dir = mkdtempSync(join(tmpdir(), 'dex-messages-'));
    const file = join(dir, 'messages.jsonl');
    writeFileSync(file, messagesFor(['ops', 'design'], 2).map(({ id: _id, ...m }) => JSON.stringify(m)).join('\n') + '\n');

    const first = await dex(['messages', 'import', file, '--json'], dexHome);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ added: 4, skipped: 0, topics: ['design', 'ops'] });
    const again = await dex(['messages', 'import', file, '--json'], dexHome);
    expect(JSON.parse(again.stdout)).toEqual({ added: 0, skipped: 4, topics: ['design', 'ops'] });
    const store = Store.open(join(dexHome, 'dex.db'));
    expect(layerStore(store).salienceBalance('ops')).toBe(2);
    store.close();

    // Thousands of topics in a night's import: the line names ten and counts the rest; --json lists them all.
    const many = join(dir, 'many.jsonl');
    const topics = Array.from({ length: 2000 }, (_, i) => `t${String(i).padStart(4, '0')}`);
    writeFileSync(many, messagesFor(topics, 1).map(({ id: _id, ...m }) => JSON.stringify(m)).join('\n') + '\n');
    const named = await dex(['messages', 'import', many], dexHome);
    expect(named.stdout.trim()).toBe(`imported 2000 messages (0 already stored) on 2000 topics: ${topics.slice(0, 10).join(', ')} (and 1,990 more)`);

    mkdirSync(join(dir, 'bad'));
    const bad = join(dir, 'bad', 'messages.jsonl');
    writeFileSync(bad, '{"topic":"ops","channel":"c","author":"a","text":"hi","time":"2025-01-01T00:00:00Z"}\n{"topic":"ops","channel":"c","author":"a","text":"hi","time":"yesterday"}\n');
    const refused = await dex(['messages', 'import', bad], dexHome);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('messages.jsonl:2: "time" is not a date and time');
  });

  it('lists insights with their numbers, newest first, filtered by topic', async () => {
    const dexHome = home();
    const store = Store.open(join(dexHome, 'dex.db'));
    const base = { category: 'reflection', ...DEFAULT_NUMBERS, strength: 1, layerRunId: 'layer-x-1', salienceSpent: 1, unparsed: false };
    layerStore(store).putInsight({ ...base, id: 'i1', topic: 'ops', content: 'ops is tired', valence: { ...DEFAULT_NUMBERS.valence, concern: 0.7 } });
    layerStore(store).putInsight({ ...base, id: 'i2', topic: 'design', content: 'design is curious', unparsed: true });
    store.close();

    const all = await dex(['insights', 'list', '--json'], dexHome);
    expect(all.code).toBe(0);
    expect((JSON.parse(all.stdout) as { id: string }[]).map((i) => i.id).sort()).toEqual(['i1', 'i2']);
    const ops = await dex(['insights', 'list', '--topic', 'ops', '--json'], dexHome);
    expect(JSON.parse(ops.stdout)).toEqual([
      expect.objectContaining({ id: 'i1', content: 'ops is tired', confidence: 0.5, valence: expect.objectContaining({ concern: 0.7 }), layerRunId: 'layer-x-1', salienceSpent: 1 }),
    ]);
    const human = await dex(['insights', 'list'], dexHome);
    expect(human.stdout).toContain('[design] reflection (unparsed)');
  });
});

/**
 * The store contract's layer tables (test/support/store/store-contract.ts): topic messages, contexts, insights,
 * the salience ledger, layer runs and their layers.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { salienceEarnKey } from '../../../core/run/ids';
import type { TopicMessage } from '../../../core/layer/layer-context';
import type { DexStore } from '../../../store/dex-store';
import { SALIENCE_PER_MESSAGE } from '../../../store/sqlite/layer-store';
import { insight, ISO_MS, later, layerRun, layerSpec, message, type NewInsight, unique } from './store-contract-fixtures';

/** The layer-table tests, on the store `opened` gives once the contract has opened it. */
export function layerTablesContract(opened: () => DexStore): void {
  describe('layer tables', () => {
    let store: DexStore;
    beforeAll(() => {
      store = opened();
    });

    it('imports messages once each, crediting their topics with salience', async () => {
      const t1 = unique('topic');
      const t2 = unique('topic');
      const m = (n: number, topic: string) => message(`${topic}-m${n}`, topic, 'general', `2024-05-01T10:0${n}:00Z`);
      const again = { ...m(1, t1), text: 'the same id again: the first kept wins' };
      expect(await store.layers.importMessages([m(2, t1), m(1, t1), m(1, t2), again])).toEqual({ added: 3, skipped: 1 });
      expect(await store.layers.importMessages([m(2, t1), m(3, t1)])).toEqual({ added: 1, skipped: 1 });
      expect(await store.layers.importMessages([])).toEqual({ added: 0, skipped: 0 });

      expect(await store.layers.salienceBalance(t1)).toBe(3 * SALIENCE_PER_MESSAGE);
      expect(await store.layers.salienceBalance(t2)).toBe(SALIENCE_PER_MESSAGE);
      expect(await store.layers.salienceEntries(salienceEarnKey(`${t1}-`))).toEqual(
        [1, 2, 3].map((n) => ({ key: salienceEarnKey(`${t1}-m${n}`), topic: t1, amount: SALIENCE_PER_MESSAGE, reason: 'message' })),
      );
      expect(await store.layers.messagesByIds([`${t1}-m1`])).toEqual([m(1, t1)]);
    });

    it('names the busiest topics since a time, with at least so many messages', async () => {
      // Times after every other test's, so only this test's topics are active.
      const [busy, quiet, alsoBusy, lone] = ['busy', 'quiet', 'also-busy', 'lone'].map((l) => unique(`at-${l}`));
      const at = (minute: number) => `2200-01-01T00:${String(minute).padStart(2, '0')}:00Z`;
      let n = 0;
      const on = (topic: string, count: number, minute = 30) => Array.from({ length: count }, () => message(`${topic}-${n++}`, topic, 'general', at(minute)));
      await store.layers.importMessages([...on(busy, 3), ...on(alsoBusy, 3), ...on(quiet, 2), ...on(lone, 1), ...on(lone, 5, 1)]);
      const [first, second] = [busy, alsoBusy].sort((a, b) => (a < b ? -1 : 1));

      expect(await store.layers.activeTopics(at(10), 2)).toEqual([first, second, quiet]);
      expect(await store.layers.activeTopics(at(10), 3, 1)).toEqual([first]);
      expect(await store.layers.activeTopics(at(0), 4)).toEqual([lone]);
      expect(await store.layers.activeTopics(at(59), 1)).toEqual([]);
    });

    it("fetches a topic's latest messages of each channel in a window, oldest first, and messages by id", async () => {
      const topic = unique('topic');
      const time = (hour: number) => `2024-06-01T${String(hour).padStart(2, '0')}:00:00Z`;
      const all = [
        message(`${topic}-a1`, topic, 'alpha', time(1)),
        message(`${topic}-a2`, topic, 'alpha', time(2)),
        message(`${topic}-a3`, topic, 'alpha', time(3)),
        message(`${topic}-a4`, topic, 'alpha', time(5)),
        message(`${topic}-b1`, topic, 'beta', time(4)),
        message(`${topic}-b2`, topic, 'beta', time(4)),
        message(`${topic}-late`, topic, 'beta', time(9)),
        message(`${topic}-early`, topic, 'gamma', time(0)),
      ];
      await store.layers.importMessages([...all, message(unique('other'), unique('topic'), 'alpha', time(3))]);
      const ids = (ms: TopicMessage[]) => ms.map((m) => m.id.slice(topic.length + 1));

      expect(ids(await store.layers.recentMessages(topic, time(1), time(6), 2))).toEqual(['a3', 'b1', 'b2', 'a4']);
      expect(ids(await store.layers.recentMessages(topic, time(0), time(9), 1))).toEqual(['early', 'a4', 'late']);
      const fetched = await store.layers.recentMessages(topic, time(5), time(5), 10);
      expect(fetched).toEqual([all[3]]);
      expect(ids(await store.layers.messagesByIds([`${topic}-late`, `${topic}-a1`, 'missing', `${topic}-b2`]))).toEqual(['a1', 'b2', 'late']);
      expect(await store.layers.messagesByIds([])).toEqual([]);
    });

    it('remembers the ids a node fetched, the first write winning', async () => {
      const key = unique('run/ops/fetch');
      await store.layers.putContext(key, ['m3', 'm1']);
      await store.layers.putContext(key, ['ignored']);
      await store.layers.putContext(`${key}-empty`, []);
      expect(await store.layers.getContext(key)).toEqual(['m3', 'm1']);
      expect(await store.layers.getContext(`${key}-empty`)).toEqual([]);
      expect(await store.layers.getContext(unique('missing'))).toBeUndefined();
    });

    it("ranks a topic's insights by each retrieval profile, unparsed ones only when asked", async () => {
      const topic = unique('topic');
      const put = async (i: NewInsight) => {
        expect(await store.layers.putInsight(i)).toBe(true);
        await later();
      };
      // balanced = importance × confidence + novelty: i1 0.91, i2 1.15, i3 0.24, i4 2
      await put(insight('i1', topic, { confidence: 0.9, importance: 0.9, novelty: 0.1, strength: 1 }));
      await put(insight('i2', topic, { confidence: 0.5, importance: 0.5, novelty: 0.9, strength: 3 }));
      await put(insight('i3', topic, { confidence: 0.2, importance: 0.2, novelty: 0.2, strength: 2 }));
      await put(insight('i4', topic, { confidence: 1, importance: 1, novelty: 1, strength: 10, unparsed: true }));
      const ranked = async (profile: 'recent' | 'strongest' | 'balanced', limit: number, includeUnparsed?: boolean) =>
        (await store.layers.topicInsights(topic, profile, limit, includeUnparsed)).map((i) => i.id);

      expect(await ranked('recent', 10)).toEqual(['i3', 'i2', 'i1']);
      expect(await ranked('recent', 10, true)).toEqual(['i4', 'i3', 'i2', 'i1']);
      expect(await ranked('recent', 2)).toEqual(['i3', 'i2']);
      expect(await ranked('strongest', 10)).toEqual(['i2', 'i3', 'i1']);
      expect(await ranked('strongest', 2, true)).toEqual(['i4', 'i2']);
      expect(await ranked('balanced', 10)).toEqual(['i2', 'i1', 'i3']);
      expect(await ranked('balanced', 10, true)).toEqual(['i4', 'i2', 'i1', 'i3']);
      expect(await store.layers.topicInsights(unique('topic'), 'recent', 10)).toEqual([]);
    });

    it('stores an insight once per id, with every number, and finds insights by id and filter', async () => {
      const topic = unique('topic');
      const run = unique('run');
      const first = insight(`${run}/a`, topic, { layerRunId: run, confidence: 0.8125, salienceSpent: 2.5, unparsed: true });
      expect(await store.layers.putInsight(first)).toBe(true);
      expect(await store.layers.putInsight({ ...first, content: 'a retried write, ignored' })).toBe(false);
      await later();
      const second = insight(`${run}/b`, topic, { layerRunId: unique('run') });
      const third = insight(`${run}/c`, unique('topic'), { layerRunId: run });
      await store.layers.putInsight(second);
      await later();
      await store.layers.putInsight(third);

      const [stored] = await store.layers.insightsByIds([first.id]);
      expect(stored).toEqual({ ...first, createdAt: expect.stringMatching(ISO_MS) });
      expect((await store.layers.insightsByIds([third.id, 'missing', first.id, second.id])).map((i) => i.id)).toEqual([first.id, second.id, third.id]);
      expect(await store.layers.insightsByIds([])).toEqual([]);

      const ids = async (filter?: { topic?: string; layerRunId?: string }) => (await store.layers.listInsights(filter)).map((i) => i.id);
      expect(await ids({ topic })).toEqual([second.id, first.id]);
      expect(await ids({ layerRunId: run })).toEqual([third.id, first.id]);
      expect(await ids({ topic, layerRunId: run })).toEqual([first.id]);
      const everything = await ids();
      expect(everything.slice(0, 3)).toEqual([third.id, second.id, first.id]);
    });

    it("keeps a topic's salience ledger: earned less spent, each key once, a spend only when covered", async () => {
      const topic = unique('topic');
      const run = unique('run');
      expect(await store.layers.salienceBalance(topic)).toBe(0);
      expect(await store.layers.addSalience(`${run}/grant`, topic, 2, 'grant')).toBe(true);
      expect(await store.layers.addSalience(`${run}/grant`, topic, 50, 'grant')).toBe(false);
      expect(await store.layers.salienceBalance(topic)).toBe(2);

      expect(await store.layers.spendSalience(`${run}/a/salience`, topic, 1.5, 'attempt')).toEqual({ spent: true, balance: 0.5 });
      expect(await store.layers.spendSalience(`${run}/a/salience`, topic, 1.5, 'attempt')).toEqual({ spent: true, balance: 0.5 });
      expect(await store.layers.spendSalience(`${run}/b/salience`, topic, 1.5, 'attempt')).toEqual({ spent: false, balance: 0.5 });
      expect(await store.layers.spendSalience(`${run}/c/salience`, topic, 0.5, 'attempt')).toEqual({ spent: true, balance: 0 });
      expect(await store.layers.addSalience(`${run}/a/refund`, topic, 0.75, 'refund')).toBe(true);
      expect(await store.layers.salienceBalance(topic)).toBe(0.75);

      // Key order is byte order, as SQLite compares: '-' < 'B' < '_' < 'a'.
      for (const suffix of ['a', 'B', '_x', '-y']) await store.layers.addSalience(`${run}/z/${suffix}`, topic, 0, 'order');
      expect((await store.layers.salienceEntries(`${run}/z/`)).map((e) => e.key.slice(`${run}/z/`.length))).toEqual(['-y', 'B', '_x', 'a']);
      expect(await store.layers.salienceEntries(`${run}/`)).toEqual([
        { key: `${run}/a/refund`, topic, amount: 0.75, reason: 'refund' },
        { key: `${run}/a/salience`, topic, amount: -1.5, reason: 'attempt' },
        { key: `${run}/c/salience`, topic, amount: -0.5, reason: 'attempt' },
        { key: `${run}/grant`, topic, amount: 2, reason: 'grant' },
        ...['-y', 'B', '_x', 'a'].map((s) => ({ key: `${run}/z/${s}`, topic, amount: 0, reason: 'order' })),
      ]);
      expect(await store.layers.salienceEntries(unique('none'))).toEqual([]);
    });

    it('keeps a layer run and its layer once, and finds the runs that resumed it', async () => {
      const id = unique('layer-nightly');
      const record = layerRun(id);
      const spec = layerSpec('nightly');
      await store.layers.putLayerRun(record, spec);
      await store.layers.putLayerRun({ ...record, status: 'failed' }, layerSpec('ignored'));
      expect(await store.layers.getLayerRun(id)).toEqual(record);
      expect(await store.layers.getLayerRunSpec(id)).toEqual(spec);

      await later();
      await store.layers.putLayerRun(layerRun(`${id}-r2`, id));
      await later();
      await store.layers.putLayerRun(layerRun(`${id}-r1`, id), spec);
      await store.layers.putLayerRun(layerRun(`${id}-r3`, `${id}-r2`));
      expect(await store.layers.layerRunsResuming(id)).toEqual([`${id}-r2`, `${id}-r1`]);
      expect(await store.layers.layerRunsResuming(`${id}-r2`)).toEqual([`${id}-r3`]);
      expect(await store.layers.layerRunsResuming(`${id}-r3`)).toEqual([]);
      expect((await store.layers.getLayerRun(`${id}-r2`))?.resumes).toBe(id);
      expect(await store.layers.getLayerRunSpec(`${id}-r2`)).toBeUndefined();
      expect(await store.layers.getLayerRun(unique('missing'))).toBeUndefined();
    });
  });
}

/**
 * The PostgreSQL store on the cluster test bed's PostgreSQL (docs/production.md#the-shared-store):
 * the store contract (test/support/store/store-contract.ts), then what only a shared store faces — several
 * hosts (here, separately opened stores: a pool each) writing at once, several hosts migrating
 * a new database at once, and the database restarting under an open store.
 */
import { freePort } from '../../host/local-ports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DexStore } from '../../store/dex-store';
import { MIGRATIONS } from '../../store/postgres/postgres-migrations';
import { openPostgresDexStore } from '../../store/postgres/postgres-store';
import { describeStoreContract } from '../support/store/store-contract';
import { insight, unique } from '../support/store/store-contract-fixtures';
import { useBedDatabases } from './bed-database';

const bed = useBedDatabases();

/** `count` calls of `call`, the even ones on store `a` and the odd ones on `b`, all at once. */
const onBoth = <T>(a: DexStore, b: DexStore, count: number, call: (store: DexStore, i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: count }, (_, i) => call(i % 2 === 0 ? a : b, i)));

describeStoreContract('the PostgreSQL store', async () => openPostgresDexStore(await bed.create()));

describe('the PostgreSQL store shared by several hosts', () => {
  let url: string;
  let a: DexStore;
  let b: DexStore;
  const notices: string[] = [];

  beforeAll(async () => {
    url = await bed.create();
    [a, b] = await Promise.all([1, 2].map(() => openPostgresDexStore(url, { log: (line) => notices.push(line) })));
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it('is one store to every host: one id, and a location without the password', async () => {
    expect(a.kind).toBe('postgres');
    expect(a.id).toMatch(/^[0-9a-f]{32}$/);
    expect(b.id).toBe(a.id);
    expect(a.location).toBe(url.replace(`:${encodeURIComponent(bed.bed.pg.password)}@`, ':***@'));
    expect(a.location).not.toContain(bed.bed.pg.password);
    await a.putArtifact('shared', 'note', 'written on a');
    expect(await b.getArtifact('shared')).toEqual({ kind: 'note', content: 'written on a' });
  });

  it("spends a topic's salience only as far as its balance goes, however many hosts spend at once", async () => {
    const topic = unique('topic');
    await a.layers.addSalience(`${topic}/grant`, topic, 10, 'grant');
    const spends = await onBoth(a, b, 16, (store, i) => store.layers.spendSalience(`${topic}/spend-${i}`, topic, 3, 'attempt'));

    const spent = spends.filter((s) => s.spent);
    expect(spent.map((s) => s.balance).sort()).toEqual([1, 4, 7]);
    expect(spends.filter((s) => !s.spent).every((s) => s.balance === 1)).toBe(true);
    expect(await b.layers.salienceBalance(topic)).toBe(1);
    expect((await a.layers.salienceEntries(`${topic}/spend-`)).map((e) => e.amount)).toEqual([-3, -3, -3]);
  });

  it('gives each cassette line to one call key, however many hosts claim at once', async () => {
    const scope = unique('scope');
    const lines = [1, 2, 3, 4, 5, 6, 7, 8];
    const claims = await onBoth(a, b, 12, (store, i) => store.claimCassetteLine(scope, 'answers.jsonl', `call-${i}`, lines));

    const given = claims.filter((line): line is number => line !== undefined);
    expect(given.sort((x, y) => x - y)).toEqual(lines);
    expect(claims.filter((line) => line === undefined)).toHaveLength(4);
    // Each call key gets its own line back, from either host.
    const again = await onBoth(b, a, 12, (store, i) => store.claimCassetteLine(scope, 'answers.jsonl', `call-${i}`, lines));
    expect(again).toEqual(claims);
  });

  it('stores an insight once when hosts write it at once', async () => {
    const run = unique('run');
    const one = insight(`${run}/ops/store`, 'ops', { layerRunId: run });
    const stored = await onBoth(a, b, 10, (store, i) => store.layers.putInsight({ ...one, content: `attempt ${i}` }));

    expect(stored.filter(Boolean)).toHaveLength(1);
    const kept = await a.layers.listInsights({ layerRunId: run });
    expect(kept).toHaveLength(1);
    expect(kept[0]!.content).toBe(`attempt ${stored.indexOf(true)}`);
  });

  it('imports overlapping batches from several hosts, each message once and credited once', async () => {
    const topic = unique('topic');
    const message = (n: number) => ({ id: `${topic}-${String(n).padStart(2, '0')}`, topic, channel: 'general', author: 'ana', text: `m${n}`, time: '2024-07-01T00:00:00Z' });
    const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => message(from + i));
    // Opposite orders, the way two imports could lock rows crosswise if the store did not order them.
    const [first, second] = await Promise.all([a.layers.importMessages(range(0, 30)), b.layers.importMessages(range(15, 45).reverse())]);

    expect(first.added + second.added).toBe(45);
    expect(first.skipped + second.skipped).toBe(15);
    expect(await a.layers.salienceBalance(topic)).toBe(45);
  });

  it('keeps working after PostgreSQL restarts: the statement in flight is tried again and nothing crashes', async () => {
    const topic = unique('topic');
    await a.layers.addSalience(`${topic}/grant`, topic, 5, 'grant');
    await a.putArtifact(`${topic}/before`, 'note', 'kept across the restart');
    // Several connections in each pool, idle when the restart cuts them.
    await onBoth(a, b, 8, (store) => store.layers.salienceBalance(topic));

    // Hold the topic's salience lock elsewhere, so a's spend waits inside its transaction.
    const holder = await bed.connect(url);
    await holder.query('SELECT pg_advisory_lock(hashtext($1), hashtext($2))', ['dex.salience', topic]);
    const spend = a.layers.spendSalience(`${topic}/spend`, topic, 2, 'attempt');
    const monitor = await bed.connect(url);
    const waiting = async () =>
      (await monitor.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'dex' AND wait_event_type = 'Lock'")).rows[0]!.n;
    for (let tries = 0; (await waiting()) === 0; tries++) {
      if (tries > 200) throw new Error('the spend never started waiting on its lock');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }

    bed.restartPostgres();
    // Asked before this process has heard of the restart: b's pooled connections still look open.
    const readAtOnce = b.getArtifact(`${topic}/before`);

    expect(await spend).toEqual({ spent: true, balance: 3 });
    expect(await readAtOnce).toEqual({ kind: 'note', content: 'kept across the restart' });
    expect(await b.layers.salienceBalance(topic)).toBe(3);
    expect(await a.claimCassetteLine(topic, 'answers.jsonl', 'after-restart', [1])).toBe(1);
    expect(notices.some((line) => line.includes('dropped an idle connection'))).toBe(true);
    expect(notices.join('\n')).not.toContain(bed.bed.pg.password);
    await Promise.all([holder.end().catch(() => {}), monitor.end().catch(() => {})]);
  });
});

describe('opening the PostgreSQL store', () => {
  it('migrates a new database once when several hosts open it at once, and all see one id', async () => {
    const url = await bed.create();
    const stores = await Promise.all([1, 2, 3, 4].map(() => openPostgresDexStore(url)));
    const admin = await bed.connect(url);
    try {
      expect(new Set(stores.map((s) => s.id)).size).toBe(1);
      const { rows } = await admin.query<{ version: number; n: number }>('SELECT version, count(*)::int AS n FROM dex_schema_migrations GROUP BY version ORDER BY version');
      expect(rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version, n: 1 })));
      expect((await admin.query('SELECT store_id FROM dex_store_meta')).rows).toEqual([{ store_id: stores[0]!.id }]);

      const reopened = await openPostgresDexStore(url);
      expect(reopened.id).toBe(stores[0]!.id);
      stores.push(reopened);
      await reopened.close();
      await expect(reopened.close()).resolves.toBeUndefined(); // closing twice is no error, as with SQLite
    } finally {
      await admin.end();
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('says in one line, without the password, which database it cannot reach', async () => {
    const port = await freePort();
    const unreachable = openPostgresDexStore(`postgres://dex:s3cret-word@127.0.0.1:${port}/dex`);
    await expect(unreachable).rejects.toThrow(new RegExp(`^cannot open the PostgreSQL store at postgres://dex:\\*\\*\\*@127\\.0\\.0\\.1:${port}/dex: .*ECONNREFUSED`));
    const refused = await unreachable.catch((err: Error) => err.message);
    expect(refused).not.toContain('s3cret');
    expect(refused).not.toContain('\n');

    const wrong = `postgres://${bed.bed.pg.user}:not-the-password@127.0.0.1:${bed.bed.pg.port}/postgres`;
    const denied = await openPostgresDexStore(wrong).catch((err: Error) => err.message);
    expect(denied).toBe(`cannot open the PostgreSQL store at postgres://${bed.bed.pg.user}:***@127.0.0.1:${bed.bed.pg.port}/postgres: password authentication failed for user "${bed.bed.pg.user}"`);
  });
});

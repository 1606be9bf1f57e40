/**
 * The layer tables in PostgreSQL (docs/production.md#the-shared-store): topic messages, insights,
 * the salience ledger, contexts, layer runs and their layers, answering as the SQLite LayerStore
 * does (store/sqlite/layer-store.ts). Every write is keyed; a salience spend holds its topic's lock, so
 * workers on several hosts never spend one balance twice.
 */
import { salienceEarnKey } from '../../core/run/ids';
import type { TopicMessage } from '../../core/layer/layer-context';
import type { LayerSpec, LayerRunRecord } from '../../core/layer/layer-types';
import type { LayerRecords } from '../dex-store';
import { INSIGHT_ORDER, SALIENCE_PER_MESSAGE, insightFromRow } from '../sqlite/layer-store';
import type { SalienceEntry } from '../records';
import { lockUntilCommit, type PostgresDb, type Sql } from './postgres-db';

const MESSAGE_COLUMNS = 'id, topic, channel, author, text, time';

/** SQLite takes a negative LIMIT as none; PostgreSQL takes NULL. */
const limitOf = (limit: number | undefined) => (limit === undefined || limit < 0 ? null : limit);

/** The layer tables of the database behind `db`. */
export function postgresLayers(db: PostgresDb): LayerRecords {
  const balanceOf = async (on: Sql, topic: string) =>
    (await on.query<{ balance: number }>('SELECT COALESCE(SUM(amount), 0) AS balance FROM salience_ledger WHERE topic = $1', [topic])).rows[0]!.balance;
  const addSalience = async (on: Sql, key: string, topic: string, amount: number, reason: string) =>
    (await on.query('INSERT INTO salience_ledger (key, topic, amount, reason) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [key, topic, amount, reason]))
      .rowCount === 1;

  return {
    async importMessages(messages) {
      // The first message of each id, as one INSERT OR IGNORE after another keeps; sorted by id, so
      // two imports that overlap take their row locks in one order and never deadlock.
      const firsts = new Map<string, TopicMessage>();
      for (const m of messages) if (!firsts.has(m.id)) firsts.set(m.id, m);
      const unique = [...firsts.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      if (unique.length === 0) return { added: 0, skipped: messages.length };
      const column = (name: keyof TopicMessage) => unique.map((m) => m[name]);
      const added = await db.transaction(async (tx) => {
        // One statement for the whole batch (arrays, not a parameter per value), however many messages.
        const inserted = await tx.query<{ id: string; topic: string }>(
          `INSERT INTO topic_messages (${MESSAGE_COLUMNS})
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
           ON CONFLICT DO NOTHING RETURNING id, topic`,
          [column('id'), column('topic'), column('channel'), column('author'), column('text'), column('time')],
        );
        await tx.query(
          `INSERT INTO salience_ledger (key, topic, amount, reason)
           SELECT key, topic, $3, 'message' FROM unnest($1::text[], $2::text[]) AS earned(key, topic) ON CONFLICT DO NOTHING`,
          [inserted.rows.map((r) => salienceEarnKey(r.id)), inserted.rows.map((r) => r.topic), SALIENCE_PER_MESSAGE],
        );
        return inserted.rows.length;
      });
      return { added, skipped: messages.length - added };
    },

    async activeTopics(since, minMessages, limit) {
      const { rows } = await db.query<{ topic: string }>(
        `SELECT topic FROM topic_messages WHERE time >= $1 GROUP BY topic HAVING COUNT(*) >= $2::double precision
         ORDER BY COUNT(*) DESC, topic LIMIT $3`,
        [since, minMessages, limitOf(limit)],
      );
      return rows.map((r) => r.topic);
    },

    async recentMessages(topic, since, until, limitPerChannel) {
      const { rows } = await db.query<TopicMessage>(
        `SELECT ${MESSAGE_COLUMNS} FROM (
           SELECT *, ROW_NUMBER() OVER (PARTITION BY channel ORDER BY time DESC, id DESC) AS n
           FROM topic_messages WHERE topic = $1 AND time >= $2 AND time <= $3) AS recent
         WHERE n <= $4::double precision ORDER BY time, id`,
        [topic, since, until, limitPerChannel],
      );
      return rows;
    },

    async messagesByIds(ids) {
      if (ids.length === 0) return [];
      return (await db.query<TopicMessage>(`SELECT ${MESSAGE_COLUMNS} FROM topic_messages WHERE id = ANY($1::text[]) ORDER BY time, id`, [ids])).rows;
    },

    async putContext(key, ids) {
      await db.query('INSERT INTO layer_contexts (key, ids) VALUES ($1, $2) ON CONFLICT DO NOTHING', [key, JSON.stringify(ids)]);
    },

    async getContext(key) {
      const { rows } = await db.query<{ ids: string }>('SELECT ids FROM layer_contexts WHERE key = $1', [key]);
      return rows[0] && (JSON.parse(rows[0].ids) as string[]);
    },

    async topicInsights(topic, profile, limit, includeUnparsed = false) {
      const { rows } = await db.query(
        `SELECT * FROM insights WHERE topic = $1 AND ($2::boolean OR unparsed = 0) ORDER BY ${INSIGHT_ORDER[profile]} LIMIT $3`,
        [topic, includeUnparsed, limitOf(limit)],
      );
      return rows.map(insightFromRow);
    },

    async insightsByIds(ids) {
      if (ids.length === 0) return [];
      return (await db.query('SELECT * FROM insights WHERE id = ANY($1::text[]) ORDER BY created_at, id', [ids])).rows.map(insightFromRow);
    },

    async putInsight(i) {
      const v = i.valence;
      const { rowCount } = await db.query(
        `INSERT INTO insights (id, topic, category, content, confidence, importance, novelty, strength,
         valence_joy, valence_concern, valence_curiosity, valence_warmth, valence_tension, layer_run_id, salience_spent, unparsed)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) ON CONFLICT DO NOTHING`,
        [i.id, i.topic, i.category, i.content, i.confidence, i.importance, i.novelty, i.strength, v.joy, v.concern, v.curiosity, v.warmth, v.tension, i.layerRunId, i.salienceSpent, i.unparsed ? 1 : 0],
      );
      return rowCount === 1;
    },

    async listInsights(filter = {}) {
      const { rows } = await db.query(
        'SELECT * FROM insights WHERE ($1::text IS NULL OR topic = $1) AND ($2::text IS NULL OR layer_run_id = $2) ORDER BY created_at DESC, id',
        [filter.topic ?? null, filter.layerRunId ?? null],
      );
      return rows.map(insightFromRow);
    },

    salienceBalance: (topic) => balanceOf(db, topic),

    addSalience: (key, topic, amount, reason) => addSalience(db, key, topic, amount, reason),

    // The topic's lock makes the balance this spend reads include every spend committed before it,
    // on any host; without it two workers could both see the same balance and both spend it.
    spendSalience: (key, topic, cost, reason) =>
      db.transaction(async (tx) => {
        await lockUntilCommit(tx, 'salience', topic);
        const held = await tx.query('SELECT 1 FROM salience_ledger WHERE key = $1', [key]);
        if (held.rows.length > 0) return { spent: true, balance: await balanceOf(tx, topic) };
        const balance = await balanceOf(tx, topic);
        if (balance < cost) return { spent: false, balance };
        await addSalience(tx, key, topic, -cost, reason);
        return { spent: true, balance: balance - cost };
      }),

    async salienceEntries(keyPrefix) {
      return (await db.query<SalienceEntry>('SELECT key, topic, amount, reason FROM salience_ledger WHERE starts_with(key, $1) ORDER BY key', [keyPrefix])).rows;
    },

    putLayerRun: (record, spec) =>
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO layer_runs (id, layer_name, status, record) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
          record.id,
          record.layerName,
          record.status,
          JSON.stringify(record),
        ]);
        if (spec) await tx.query('INSERT INTO layer_run_specs (id, spec) VALUES ($1, $2) ON CONFLICT DO NOTHING', [record.id, JSON.stringify(spec)]);
      }),

    async layerRunsResuming(id) {
      // json, not jsonb: jsonb refuses a \u0000 anywhere in a record (a model's output may hold one).
      const { rows } = await db.query<{ id: string }>("SELECT id FROM layer_runs WHERE (record::json)->>'resumes' = $1 ORDER BY created_at", [id]);
      return rows.map((r) => r.id);
    },

    async getLayerRunSpec(id) {
      const { rows } = await db.query<{ spec: string }>('SELECT spec FROM layer_run_specs WHERE id = $1', [id]);
      return rows[0] && (JSON.parse(rows[0].spec) as LayerSpec);
    },

    async getLayerRun(id) {
      const { rows } = await db.query<{ record: string }>('SELECT record FROM layer_runs WHERE id = $1', [id]);
      return rows[0] && (JSON.parse(rows[0].record) as LayerRunRecord);
    },
  };
}

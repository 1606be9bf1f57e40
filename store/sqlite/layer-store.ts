/**
 * The layer tables beside the Store's own, in the same SQLite database: topic messages,
 * insights, the salience ledger, fetched contexts, layer run records and the layer each run
 * ran (for `dex layer --resume`). Every write is keyed (INSERT OR IGNORE), so a retried
 * activity never stores anything twice.
 */
import type Database from 'better-sqlite3';
import { salienceEarnKey } from '../../core/run/ids';
import type { TopicMessage } from '../../core/layer/layer-context';
import type { LayerRunRecord, LayerSpec, RetrievalProfile } from '../../core/layer/layer-types';
import { sideTables } from './side-tables';
import type { SalienceEntry, StoredInsight } from '../records';

/** Salience a topic earns with each imported message: attention follows activity. */
export const SALIENCE_PER_MESSAGE = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS topic_messages (
  id TEXT PRIMARY KEY, topic TEXT NOT NULL, channel TEXT NOT NULL, author TEXT NOT NULL, text TEXT NOT NULL, time TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS topic_messages_by_topic ON topic_messages (topic, time);
CREATE TABLE IF NOT EXISTS insights (
  id TEXT PRIMARY KEY, topic TEXT NOT NULL, category TEXT NOT NULL, content TEXT NOT NULL,
  confidence REAL NOT NULL, importance REAL NOT NULL, novelty REAL NOT NULL, strength REAL NOT NULL,
  valence_joy REAL, valence_concern REAL, valence_curiosity REAL, valence_warmth REAL, valence_tension REAL,
  layer_run_id TEXT NOT NULL, salience_spent REAL NOT NULL, unparsed INTEGER NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));
CREATE INDEX IF NOT EXISTS insights_by_topic ON insights (topic, created_at);
CREATE TABLE IF NOT EXISTS salience_ledger (
  key TEXT PRIMARY KEY, topic TEXT NOT NULL, amount REAL NOT NULL, reason TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));
CREATE INDEX IF NOT EXISTS salience_by_topic ON salience_ledger (topic);
CREATE TABLE IF NOT EXISTS layer_contexts (key TEXT PRIMARY KEY, ids TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS layer_runs (
  id TEXT PRIMARY KEY, layer_name TEXT NOT NULL, status TEXT NOT NULL, record TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));
CREATE TABLE IF NOT EXISTS layer_run_specs (id TEXT PRIMARY KEY, spec TEXT NOT NULL);
`;

/** How each retrieval profile ranks a topic's insights: SQL both stores use, so they rank alike. */
export const INSIGHT_ORDER: Record<RetrievalProfile, string> = {
  recent: 'created_at DESC',
  strongest: 'strength DESC, created_at DESC',
  balanced: 'importance * confidence + novelty DESC, created_at DESC',
};

/** The layer tables of a store, created on first use. */
export const layerStore = sideTables(SCHEMA, (db) => new LayerStore(db));

/** Reads and keyed writes of the layer tables. */
class LayerStore {
  constructor(private readonly db: Database.Database) {}

  /** Stores messages (a message already stored is skipped) and credits their topics' salience. */
  importMessages(messages: TopicMessage[]): { added: number; skipped: number } {
    const insert = this.db.prepare('INSERT OR IGNORE INTO topic_messages (id, topic, channel, author, text, time) VALUES (?, ?, ?, ?, ?, ?)');
    let added = 0;
    this.db.transaction(() => {
      for (const m of messages) {
        if (insert.run(m.id, m.topic, m.channel, m.author, m.text, m.time).changes === 0) continue;
        added++;
        this.addSalience(salienceEarnKey(m.id), m.topic, SALIENCE_PER_MESSAGE, 'message');
      }
    }).immediate();
    return { added, skipped: messages.length - added };
  }

  /** Topics with at least `minMessages` messages since `since`, busiest first. */
  activeTopics(since: string, minMessages: number, limit?: number): string[] {
    const rows = this.db
      .prepare(
        `SELECT topic FROM topic_messages WHERE time >= ? GROUP BY topic HAVING COUNT(*) >= ?
         ORDER BY COUNT(*) DESC, topic LIMIT ?`,
      )
      .all(since, minMessages, limit ?? -1) as { topic: string }[];
    return rows.map((r) => r.topic);
  }

  /** A topic's messages in [since, until], the latest `limitPerChannel` of each channel, oldest first. */
  recentMessages(topic: string, since: string, until: string, limitPerChannel: number): TopicMessage[] {
    return this.db
      .prepare(
        `SELECT id, topic, channel, author, text, time FROM (
           SELECT *, ROW_NUMBER() OVER (PARTITION BY channel ORDER BY time DESC, id DESC) AS n
           FROM topic_messages WHERE topic = ? AND time >= ? AND time <= ?)
         WHERE n <= ? ORDER BY time, id`,
      )
      .all(topic, since, until, limitPerChannel) as TopicMessage[];
  }

  /** The messages with these ids, oldest first. */
  messagesByIds(ids: string[]): TopicMessage[] {
    return byIds<TopicMessage>(this.db, 'SELECT id, topic, channel, author, text, time FROM topic_messages', ids, 'time, id');
  }

  /** Remembers the ids a node fetched, under `key` (the first write wins). */
  putContext(key: string, ids: string[]): void {
    this.db.prepare('INSERT OR IGNORE INTO layer_contexts (key, ids) VALUES (?, ?)').run(key, JSON.stringify(ids));
  }

  /** The ids stored under `key`. */
  getContext(key: string): string[] | undefined {
    const row = this.db.prepare('SELECT ids FROM layer_contexts WHERE key = ?').get(key) as { ids: string } | undefined;
    return row && (JSON.parse(row.ids) as string[]);
  }

  /** A topic's insights, best first by `profile`; unparsed ones only when asked for (docs/layers.md#parse-modes-store_insight). */
  topicInsights(topic: string, profile: RetrievalProfile, limit: number, includeUnparsed = false): StoredInsight[] {
    const rows = this.db
      .prepare(`SELECT * FROM insights WHERE topic = ? AND (? OR unparsed = 0) ORDER BY ${INSIGHT_ORDER[profile]} LIMIT ?`)
      .all(topic, includeUnparsed ? 1 : 0, limit);
    return (rows as Record<string, unknown>[]).map(insightFromRow);
  }

  /** The insights with these ids, oldest first. */
  insightsByIds(ids: string[]): StoredInsight[] {
    return byIds<Record<string, unknown>>(this.db, 'SELECT * FROM insights', ids, 'created_at, id').map(insightFromRow);
  }

  /** Stores an insight once per id; false when it was already stored. */
  putInsight(i: Omit<StoredInsight, 'createdAt'>): boolean {
    const v = i.valence;
    return (
      this.db
        .prepare(
          `INSERT OR IGNORE INTO insights (id, topic, category, content, confidence, importance, novelty, strength,
           valence_joy, valence_concern, valence_curiosity, valence_warmth, valence_tension, layer_run_id, salience_spent, unparsed)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(i.id, i.topic, i.category, i.content, i.confidence, i.importance, i.novelty, i.strength, v.joy, v.concern, v.curiosity, v.warmth, v.tension, i.layerRunId, i.salienceSpent, i.unparsed ? 1 : 0)
        .changes === 1
    );
  }

  /** Insights, newest first, of one topic and/or one layer run when given. */
  listInsights(filter: { topic?: string; layerRunId?: string } = {}): StoredInsight[] {
    const rows = this.db
      .prepare('SELECT * FROM insights WHERE (? IS NULL OR topic = ?) AND (? IS NULL OR layer_run_id = ?) ORDER BY created_at DESC, id')
      .all(filter.topic ?? null, filter.topic ?? null, filter.layerRunId ?? null, filter.layerRunId ?? null);
    return (rows as Record<string, unknown>[]).map(insightFromRow);
  }

  /** A topic's salience balance: what it earned less what it spent. */
  salienceBalance(topic: string): number {
    const row = this.db.prepare('SELECT COALESCE(SUM(amount), 0) AS balance FROM salience_ledger WHERE topic = ?').get(topic) as { balance: number };
    return row.balance;
  }

  /** Adds a ledger entry once per key (negative `amount` spends); false when the key was already there. */
  addSalience(key: string, topic: string, amount: number, reason: string): boolean {
    return this.db.prepare('INSERT OR IGNORE INTO salience_ledger (key, topic, amount, reason) VALUES (?, ?, ?, ?)').run(key, topic, amount, reason).changes === 1;
  }

  /**
   * Spends `cost` from `topic` under `key` when its balance covers it. A key already spent
   * counts as spent again (a retried activity), so one attempt never pays twice.
   */
  spendSalience(key: string, topic: string, cost: number, reason: string): { spent: boolean; balance: number } {
    return this.db
      .transaction(() => {
        const held = this.db.prepare('SELECT amount FROM salience_ledger WHERE key = ?').get(key);
        if (held) return { spent: true, balance: this.salienceBalance(topic) };
        const balance = this.salienceBalance(topic);
        if (balance < cost) return { spent: false, balance };
        this.addSalience(key, topic, -cost, reason);
        return { spent: true, balance: balance - cost };
      })
      .immediate();
  }

  /** The ledger entries whose keys start with `keyPrefix` (a run's, or a run's target's: core/run/ids.ts layerNodeKey), in key order. */
  salienceEntries(keyPrefix: string): SalienceEntry[] {
    return this.db
      .prepare("SELECT key, topic, amount, reason FROM salience_ledger WHERE substr(key, 1, length(?)) = ? ORDER BY key")
      .all(keyPrefix, keyPrefix) as SalienceEntry[];
  }

  /** Stores a layer run's record and the layer it ran (once per id). */
  putLayerRun(record: LayerRunRecord, spec?: LayerSpec): void {
    this.db.transaction(() => {
      this.db
        .prepare('INSERT OR IGNORE INTO layer_runs (id, layer_name, status, record) VALUES (?, ?, ?, ?)')
        .run(record.id, record.layerName, record.status, JSON.stringify(record));
      if (spec) this.db.prepare('INSERT OR IGNORE INTO layer_run_specs (id, spec) VALUES (?, ?)').run(record.id, JSON.stringify(spec));
    }).immediate();
  }

  /** The runs that resumed the run `id` (`dex layer --resume`), by the `resumes` of their records. */
  layerRunsResuming(id: string): string[] {
    const rows = this.db.prepare("SELECT id FROM layer_runs WHERE json_extract(record, '$.resumes') = ? ORDER BY created_at").all(id) as { id: string }[];
    return rows.map((r) => r.id);
  }

  /** The layer the run `id` ran, as its input held it. */
  getLayerRunSpec(id: string): LayerSpec | undefined {
    const row = this.db.prepare('SELECT spec FROM layer_run_specs WHERE id = ?').get(id) as { spec: string } | undefined;
    return row && (JSON.parse(row.spec) as LayerSpec);
  }

  /** The record of the layer run `id`. */
  getLayerRun(id: string): LayerRunRecord | undefined {
    const row = this.db.prepare('SELECT record FROM layer_runs WHERE id = ?').get(id) as { record: string } | undefined;
    return row && (JSON.parse(row.record) as LayerRunRecord);
  }
}

function byIds<T>(db: Database.Database, select: string, ids: string[], order: string): T[] {
  if (ids.length === 0) return [];
  // json_each takes any number of ids in one bound parameter, where `IN (?, ?, …)` has a limit.
  return db.prepare(`${select} WHERE id IN (SELECT value FROM json_each(?)) ORDER BY ${order}`).all(JSON.stringify(ids)) as T[];
}

/** A row of `insights` as the insight it stores; both stores read their rows with it. */
export function insightFromRow(r: Record<string, unknown>): StoredInsight {
  const n = (k: string) => r[k] as number;
  const opt = (k: string) => (r[k] as number | null) ?? null;
  return {
    id: r.id as string,
    topic: r.topic as string,
    category: r.category as string,
    content: r.content as string,
    confidence: n('confidence'),
    importance: n('importance'),
    novelty: n('novelty'),
    strength: n('strength'),
    valence: { joy: opt('valence_joy'), concern: opt('valence_concern'), curiosity: opt('valence_curiosity'), warmth: opt('valence_warmth'), tension: opt('valence_tension') },
    layerRunId: r.layer_run_id as string,
    salienceSpent: n('salience_spent'),
    unparsed: r.unparsed === 1,
    createdAt: r.created_at as string,
  };
}

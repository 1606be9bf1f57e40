/**
 * The PostgreSQL store's schema, as numbered migrations (docs/production.md#the-shared-store):
 * the same tables and columns as the SQLite store's (store/sqlite/sqlite-store.ts, layer-store.ts,
 * memory-store.ts), so both answer alike. A migration is never edited once released; a change
 * is a new one at the end. `dex_schema_migrations` records which ran.
 *
 * Differences from SQLite, each so the answers stay the same:
 * - text is COLLATE "C": SQLite compares text byte by byte, and orderings, key ranges
 *   (listTranscripts) and ISO times must compare the same here whatever the database's locale.
 * - INTEGER is bigint (read back as a JS number, store/postgres/postgres-db.ts), REAL double precision.
 * - `created_at` is text in SQLite's `strftime('%Y-%m-%dT%H:%M:%fZ','now')` form, from the clock
 *   at each statement (not the transaction's start, as now() would be).
 * - an ordering by SQLite's rowid uses an `ord` bigserial column.
 * - tool results and artifacts hold raw command output, which may contain NUL bytes: text in
 *   PostgreSQL cannot, so those two `content` columns are bytea (UTF-8), which round-trips any string.
 */
import type pg from 'pg';

interface Migration {
  version: number;
  about: string;
  sql: string;
}

const NOW = `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const TEXT = 'text COLLATE "C"';
const CREATED = `created_at ${TEXT} NOT NULL DEFAULT ${NOW}`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    about: 'run records: transcripts, tool results, artifacts, model calls, phases, cassette claims',
    sql: `
CREATE TABLE messages (
  transcript_id ${TEXT} NOT NULL, seq bigint NOT NULL, role ${TEXT} NOT NULL, content ${TEXT} NOT NULL, ${CREATED},
  PRIMARY KEY (transcript_id, seq));
CREATE TABLE tool_results (
  transcript_id ${TEXT} NOT NULL, tool_use_id ${TEXT} NOT NULL, name ${TEXT} NOT NULL, content bytea NOT NULL,
  is_error bigint NOT NULL, ${CREATED}, PRIMARY KEY (transcript_id, tool_use_id));
CREATE TABLE artifacts (id ${TEXT} PRIMARY KEY, kind ${TEXT} NOT NULL, content bytea NOT NULL, ${CREATED});
CREATE TABLE model_calls (
  call_key ${TEXT} PRIMARY KEY, workflow_id ${TEXT} NOT NULL, task_id ${TEXT} NOT NULL, phase ${TEXT} NOT NULL,
  model ${TEXT} NOT NULL, input bigint NOT NULL, output bigint NOT NULL, cache_read bigint NOT NULL,
  cache_write bigint NOT NULL, cost_usd double precision NOT NULL, duration_ms bigint NOT NULL, stop_reason ${TEXT}, ${CREATED});
CREATE INDEX model_calls_by_workflow ON model_calls (workflow_id, created_at);
CREATE TABLE phase_records (
  key ${TEXT} PRIMARY KEY, workflow_id ${TEXT} NOT NULL, task_id ${TEXT} NOT NULL, phase ${TEXT} NOT NULL,
  state ${TEXT} NOT NULL, turns bigint NOT NULL, input bigint NOT NULL, output bigint NOT NULL,
  cache_read bigint NOT NULL, cache_write bigint NOT NULL, cost_usd double precision NOT NULL,
  duration_ms bigint NOT NULL, model ${TEXT} NOT NULL, commit_sha ${TEXT}, ${CREATED});
CREATE INDEX phase_records_by_workflow ON phase_records (workflow_id, created_at);
CREATE TABLE cassette_claims (
  scope ${TEXT} NOT NULL, cassette ${TEXT} NOT NULL, line_no bigint NOT NULL, call_key ${TEXT} NOT NULL,
  PRIMARY KEY (scope, cassette, line_no), UNIQUE (scope, cassette, call_key));`,
  },
  {
    version: 2,
    about: 'layer tables: topic messages, insights, salience ledger, contexts, layer runs and their layers',
    sql: `
CREATE TABLE topic_messages (
  id ${TEXT} PRIMARY KEY, topic ${TEXT} NOT NULL, channel ${TEXT} NOT NULL, author ${TEXT} NOT NULL, text ${TEXT} NOT NULL, time ${TEXT} NOT NULL);
CREATE INDEX topic_messages_by_topic ON topic_messages (topic, time);
CREATE TABLE insights (
  id ${TEXT} PRIMARY KEY, topic ${TEXT} NOT NULL, category ${TEXT} NOT NULL, content ${TEXT} NOT NULL,
  confidence double precision NOT NULL, importance double precision NOT NULL, novelty double precision NOT NULL,
  strength double precision NOT NULL, valence_joy double precision, valence_concern double precision,
  valence_curiosity double precision, valence_warmth double precision, valence_tension double precision,
  layer_run_id ${TEXT} NOT NULL, salience_spent double precision NOT NULL, unparsed bigint NOT NULL, ${CREATED});
CREATE INDEX insights_by_topic ON insights (topic, created_at);
CREATE TABLE salience_ledger (
  key ${TEXT} PRIMARY KEY, topic ${TEXT} NOT NULL, amount double precision NOT NULL, reason ${TEXT} NOT NULL, ${CREATED});
CREATE INDEX salience_by_topic ON salience_ledger (topic);
CREATE TABLE layer_contexts (key ${TEXT} PRIMARY KEY, ids ${TEXT} NOT NULL);
CREATE TABLE layer_runs (
  id ${TEXT} PRIMARY KEY, layer_name ${TEXT} NOT NULL, status ${TEXT} NOT NULL, record ${TEXT} NOT NULL, ${CREATED});
CREATE TABLE layer_run_specs (id ${TEXT} PRIMARY KEY, spec ${TEXT} NOT NULL);`,
  },
  {
    version: 3,
    about: 'memory tables: run memory and project memory',
    sql: `
CREATE TABLE run_memory (
  run_key ${TEXT} NOT NULL, task_id ${TEXT} NOT NULL, entry ${TEXT} NOT NULL, ${CREATED},
  ord bigserial NOT NULL, PRIMARY KEY (run_key, task_id));
CREATE TABLE project_memory (
  id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, repo_key ${TEXT} NOT NULL, kind ${TEXT} NOT NULL,
  text ${TEXT} NOT NULL, norm ${TEXT} NOT NULL, ${CREATED}, UNIQUE (repo_key, kind, norm));`,
  },
  {
    version: 4,
    about: "the store's identity: one random id, the same for every worker that opens the database",
    // gen_random_uuid is built in from PostgreSQL 13 on.
    sql: `
CREATE TABLE dex_store_meta (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row), store_id ${TEXT} NOT NULL, ${CREATED});
INSERT INTO dex_store_meta (store_id) VALUES (replace(gen_random_uuid()::text, '-', ''));`,
  },
];

/** One advisory lock for every migrating process: the first migrates, the others wait and find it done. */
const MIGRATION_LOCK = `SELECT pg_advisory_xact_lock(hashtext('dex.migrations'), 0)`;

/**
 * Brings the database up to the last migration, in one transaction holding the migration lock,
 * so several workers starting at once migrate it once and none sees half a schema. Returns the
 * versions it applied.
 */
export async function migrate(client: pg.ClientBase, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  await client.query('BEGIN');
  try {
    await client.query(MIGRATION_LOCK);
    await client.query(`CREATE TABLE IF NOT EXISTS dex_schema_migrations (version integer PRIMARY KEY, applied_at ${TEXT} NOT NULL DEFAULT ${NOW})`);
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM dex_schema_migrations')).rows.map((r) => r.version));
    const applied: number[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO dex_schema_migrations (version) VALUES ($1)', [m.version]);
      applied.push(m.version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}

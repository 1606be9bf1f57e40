import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ModelCallRecord, PhaseRecord, StoredMessage, StoredToolResult } from '../records';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS messages (
  transcript_id TEXT NOT NULL, seq INTEGER NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  PRIMARY KEY (transcript_id, seq));
CREATE TABLE IF NOT EXISTS tool_results (
  transcript_id TEXT NOT NULL, tool_use_id TEXT NOT NULL, name TEXT NOT NULL, content TEXT NOT NULL,
  is_error INTEGER NOT NULL, created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  PRIMARY KEY (transcript_id, tool_use_id));
CREATE TABLE IF NOT EXISTS artifacts (
  id TEXT PRIMARY KEY, kind TEXT NOT NULL, content TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));
CREATE TABLE IF NOT EXISTS model_calls (
  call_key TEXT PRIMARY KEY, workflow_id TEXT NOT NULL, task_id TEXT NOT NULL, phase TEXT NOT NULL,
  model TEXT NOT NULL, input INTEGER NOT NULL, output INTEGER NOT NULL, cache_read INTEGER NOT NULL,
  cache_write INTEGER NOT NULL, cost_usd REAL NOT NULL, duration_ms INTEGER NOT NULL, stop_reason TEXT,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));
CREATE TABLE IF NOT EXISTS phase_records (
  key TEXT PRIMARY KEY, workflow_id TEXT NOT NULL, task_id TEXT NOT NULL, phase TEXT NOT NULL,
  state TEXT NOT NULL, turns INTEGER NOT NULL, input INTEGER NOT NULL, output INTEGER NOT NULL,
  cache_read INTEGER NOT NULL, cache_write INTEGER NOT NULL, cost_usd REAL NOT NULL,
  duration_ms INTEGER NOT NULL, model TEXT NOT NULL, commit_sha TEXT,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));
CREATE TABLE IF NOT EXISTS cassette_claims (
  scope TEXT NOT NULL, cassette TEXT NOT NULL, line_no INTEGER NOT NULL, call_key TEXT NOT NULL,
  PRIMARY KEY (scope, cassette, line_no), UNIQUE (scope, cassette, call_key));
`;

const BUSY_TIMEOUT_MS = 15_000;

/**
 * Switches `db` to write-ahead logging, waiting for other processes that open the same new file
 * at the same moment: SQLite answers this pragma's lock contention with SQLITE_BUSY at once, without
 * its busy handler. Two `dex task` commands started together on a new DEX_HOME failed that way
 * ("database is locked"); four processes opening new files together failed 17 to 27 opens in 160
 * (test/store/sqlite/sqlite-open-race.test.ts). The short random sleeps keep them from retrying in step.
 */
function useWriteAheadLog(db: Database.Database): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 + Math.random() * 20);
    }
  }
}

/**
 * The embedded store (SQLite through better-sqlite3): transcripts, tool results, artifacts,
 * model-call and phase records. Every write is keyed by a caller-chosen id and ignores a
 * second write of the same key, so a retried activity never stores anything twice.
 */
export class Store {
  private constructor(private readonly db: Database.Database) {}

  /** Opens (creating if needed) the store at `path`. */
  static open(path: string): Store {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    // A writer waits up to BUSY_TIMEOUT_MS for another process's write (commands and workers share the file).
    const db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
    useWriteAheadLog(db);
    db.pragma('synchronous = NORMAL');
    db.exec(SCHEMA);
    return new Store(db);
  }

  close(): void {
    this.db.close();
  }

  appendMessage(transcriptId: string, seq: number, role: StoredMessage['role'], content: unknown): void {
    this.db
      .prepare('INSERT OR IGNORE INTO messages (transcript_id, seq, role, content) VALUES (?, ?, ?, ?)')
      .run(transcriptId, seq, role, JSON.stringify(content));
  }

  getMessage(transcriptId: string, seq: number): StoredMessage | undefined {
    const row = this.db
      .prepare('SELECT seq, role, content FROM messages WHERE transcript_id = ? AND seq = ?')
      .get(transcriptId, seq) as { seq: number; role: StoredMessage['role']; content: string } | undefined;
    return row && { seq: row.seq, role: row.role, content: JSON.parse(row.content) };
  }

  /** The transcript's messages in order, up to and including `uptoSeq` when given. */
  listMessages(transcriptId: string, uptoSeq = Number.MAX_SAFE_INTEGER): StoredMessage[] {
    const rows = this.db
      .prepare('SELECT seq, role, content FROM messages WHERE transcript_id = ? AND seq <= ? ORDER BY seq')
      .all(transcriptId, uptoSeq) as { seq: number; role: StoredMessage['role']; content: string }[];
    return rows.map((r) => ({ seq: r.seq, role: r.role, content: JSON.parse(r.content) }));
  }

  /** The ids of the transcripts that start with `prefix` (a workflow's: core/run/ids.ts workflowKeyPrefix), oldest first. */
  listTranscripts(prefix: string): string[] {
    if (!prefix) return [];
    const end = prefixRangeEnd(prefix);
    const rows = this.db
      .prepare(
        'SELECT transcript_id FROM messages WHERE transcript_id >= ? AND transcript_id < ? GROUP BY transcript_id ORDER BY MIN(created_at), transcript_id',
      )
      .all(prefix, end) as { transcript_id: string }[];
    return rows.map((r) => r.transcript_id);
  }

  putToolResult(transcriptId: string, toolUseId: string, result: StoredToolResult): void {
    this.db
      .prepare(
        'INSERT OR IGNORE INTO tool_results (transcript_id, tool_use_id, name, content, is_error) VALUES (?, ?, ?, ?, ?)',
      )
      .run(transcriptId, toolUseId, result.name, result.content, result.isError ? 1 : 0);
  }

  getToolResult(transcriptId: string, toolUseId: string): StoredToolResult | undefined {
    const row = this.db
      .prepare('SELECT name, content, is_error FROM tool_results WHERE transcript_id = ? AND tool_use_id = ?')
      .get(transcriptId, toolUseId) as { name: string; content: string; is_error: number } | undefined;
    return row && { name: row.name, content: row.content, isError: row.is_error === 1 };
  }

  putArtifact(id: string, kind: string, content: string): void {
    this.db.prepare('INSERT OR IGNORE INTO artifacts (id, kind, content) VALUES (?, ?, ?)').run(id, kind, content);
  }

  hasArtifactsUnder(prefix: string): boolean {
    if (!prefix) return false;
    return this.db.prepare('SELECT 1 FROM artifacts WHERE id >= ? AND id < ? LIMIT 1').get(prefix, prefixRangeEnd(prefix)) !== undefined;
  }

  getArtifact(id: string): { kind: string; content: string } | undefined {
    return this.db.prepare('SELECT kind, content FROM artifacts WHERE id = ?').get(id) as
      | { kind: string; content: string }
      | undefined;
  }

  recordModelCall(r: ModelCallRecord): void {
    this.db
      .prepare(
        `INSERT OR IGNORE INTO model_calls (call_key, workflow_id, task_id, phase, model, input, output,
         cache_read, cache_write, cost_usd, duration_ms, stop_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(r.callKey, r.workflowId, r.taskId, r.phase, r.model, r.input, r.output, r.cacheRead, r.cacheWrite, r.costUsd, r.durationMs, r.stopReason ?? null);
  }

  /** Stores a model reply at `seq` and its accounting together, so neither exists without the other. */
  recordModelReply(transcriptId: string, seq: number, content: unknown, r: ModelCallRecord): void {
    this.db.transaction(() => {
      this.appendMessage(transcriptId, seq, 'assistant', content);
      this.recordModelCall(r);
    }).immediate();
  }

  /** The accounting of the model call `callKey`, if it was recorded. */
  getModelCall(callKey: string): ModelCallRecord | undefined {
    const row = this.db.prepare('SELECT * FROM model_calls WHERE call_key = ?').get(callKey) as Record<string, unknown> | undefined;
    return row && fromRow<ModelCallRecord>(row);
  }

  listModelCalls(workflowId: string): ModelCallRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM model_calls WHERE workflow_id = ? ORDER BY created_at, call_key')
      .all(workflowId) as Record<string, unknown>[];
    return rows.map((r) => fromRow<ModelCallRecord>(r));
  }

  recordPhase(r: PhaseRecord): void {
    this.db
      .prepare(
        `INSERT OR IGNORE INTO phase_records (key, workflow_id, task_id, phase, state, turns, input, output,
         cache_read, cache_write, cost_usd, duration_ms, model, commit_sha) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(r.key, r.workflowId, r.taskId, r.phase, r.state, r.turns, r.input, r.output, r.cacheRead, r.cacheWrite, r.costUsd, r.durationMs, r.model, r.commitSha);
  }

  listPhases(workflowId: string): PhaseRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM phase_records WHERE workflow_id = ? ORDER BY created_at, key')
      .all(workflowId) as Record<string, unknown>[];
    return rows.map((r) => fromRow<PhaseRecord>(r));
  }

  /**
   * Claims a replay-cassette line for `callKey`: the line it already holds, else the first of
   * `candidates` (line numbers in file order) that no other call in `scope` holds.
   */
  claimCassetteLine(scope: string, cassette: string, callKey: string, candidates: number[]): number | undefined {
    const claim = this.db.transaction((): number | undefined => {
      const held = this.db
        .prepare('SELECT line_no FROM cassette_claims WHERE scope = ? AND cassette = ? AND call_key = ?')
        .get(scope, cassette, callKey) as { line_no: number } | undefined;
      if (held) return held.line_no;
      const taken = new Set(
        (
          this.db.prepare('SELECT line_no FROM cassette_claims WHERE scope = ? AND cassette = ?').all(scope, cassette) as {
            line_no: number;
          }[]
        ).map((r) => r.line_no),
      );
      const free = candidates.find((line) => !taken.has(line));
      if (free === undefined) return undefined;
      this.db
        .prepare('INSERT INTO cassette_claims (scope, cassette, line_no, call_key) VALUES (?, ?, ?, ?)')
        .run(scope, cassette, free, callKey);
      return free;
    });
    return claim.immediate();
  }

  /** The database itself, for a feature's store module that keeps its own tables beside these (see store/sqlite/layer-store.ts). */
  get database(): Database.Database {
    return this.db;
  }
}

/**
 * Where the ids that start with `prefix` end, so a range on the primary key finds them and the
 * index answers: every such id sorts at or after the prefix and before the prefix with its last
 * character raised by one (in byte order: SQLite's, and PostgreSQL's with `COLLATE "C"`).
 */
export function prefixRangeEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCodePoint(prefix.codePointAt(prefix.length - 1)! + 1);
}

/**
 * A row as the record type it was written from: snake_case columns become camelCase fields;
 * `created_at`, which the database adds, is left out. Both stores read their records with it.
 */
export function fromRow<T>(row: Record<string, unknown>): T {
  const record: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    if (column !== 'created_at') record[column.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())] = value;
  }
  return record as T;
}

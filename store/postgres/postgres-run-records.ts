/**
 * Run records in PostgreSQL (docs/production.md#the-shared-store): transcripts, tool results,
 * artifacts, model-call and phase records and cassette claims, answering as the SQLite Store does
 * (store/sqlite/sqlite-store.ts). Every write is keyed and a second write of a key is ignored.
 */
import type { RunRecords } from '../dex-store';
import { lockUntilCommit, type PostgresDb, type Sql } from './postgres-db';
import { fromRow, prefixRangeEnd } from '../sqlite/sqlite-store';
import type { ModelCallRecord, PhaseRecord, StoredMessage } from '../records';

type MessageRow = { seq: number; role: StoredMessage['role']; content: string };

const MODEL_CALL_COLUMNS =
  'call_key, workflow_id, task_id, phase, model, input, output, cache_read, cache_write, cost_usd, duration_ms, stop_reason';
const PHASE_COLUMNS =
  'key, workflow_id, task_id, phase, state, turns, input, output, cache_read, cache_write, cost_usd, duration_ms, model, commit_sha';

const messageOf = (r: MessageRow): StoredMessage => ({ seq: r.seq, role: r.role, content: JSON.parse(r.content) });

/** The run records of the database behind `db`. */
export function postgresRunRecords(db: PostgresDb): RunRecords {
  const appendMessage = async (on: Sql, transcriptId: string, seq: number, role: StoredMessage['role'], content: unknown) => {
    await on.query('INSERT INTO messages (transcript_id, seq, role, content) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
      transcriptId,
      seq,
      role,
      JSON.stringify(content),
    ]);
  };
  const recordModelCall = async (on: Sql, r: ModelCallRecord) => {
    await on.query(
      `INSERT INTO model_calls (${MODEL_CALL_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING`,
      [r.callKey, r.workflowId, r.taskId, r.phase, r.model, r.input, r.output, r.cacheRead, r.cacheWrite, r.costUsd, r.durationMs, r.stopReason ?? null],
    );
  };

  return {
    appendMessage: (transcriptId, seq, role, content) => appendMessage(db, transcriptId, seq, role, content),

    async getMessage(transcriptId, seq) {
      const { rows } = await db.query<MessageRow>('SELECT seq, role, content FROM messages WHERE transcript_id = $1 AND seq = $2', [transcriptId, seq]);
      return rows[0] && messageOf(rows[0]);
    },

    async listMessages(transcriptId, uptoSeq = Number.MAX_SAFE_INTEGER) {
      const { rows } = await db.query<MessageRow>('SELECT seq, role, content FROM messages WHERE transcript_id = $1 AND seq <= $2 ORDER BY seq', [
        transcriptId,
        uptoSeq,
      ]);
      return rows.map(messageOf);
    },

    async listTranscripts(prefix) {
      if (!prefix) return [];
      // The column's "C" collation makes the range byte order, as in SQLite.
      const end = prefixRangeEnd(prefix);
      const { rows } = await db.query<{ transcript_id: string }>(
        'SELECT transcript_id FROM messages WHERE transcript_id >= $1 AND transcript_id < $2 GROUP BY transcript_id ORDER BY MIN(created_at), transcript_id',
        [prefix, end],
      );
      return rows.map((r) => r.transcript_id);
    },

    async putToolResult(transcriptId, toolUseId, result) {
      await db.query(
        'INSERT INTO tool_results (transcript_id, tool_use_id, name, content, is_error) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING',
        [transcriptId, toolUseId, result.name, Buffer.from(result.content, 'utf8'), result.isError ? 1 : 0],
      );
    },

    async getToolResult(transcriptId, toolUseId) {
      const { rows } = await db.query<{ name: string; content: Buffer; is_error: number }>(
        'SELECT name, content, is_error FROM tool_results WHERE transcript_id = $1 AND tool_use_id = $2',
        [transcriptId, toolUseId],
      );
      const row = rows[0];
      return row && { name: row.name, content: row.content.toString('utf8'), isError: row.is_error === 1 };
    },

    async putArtifact(id, kind, content) {
      await db.query('INSERT INTO artifacts (id, kind, content) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [id, kind, Buffer.from(content, 'utf8')]);
    },

    async hasArtifactsUnder(prefix) {
      if (!prefix) return false;
      // The column's "C" collation makes the range byte order, as in SQLite.
      const { rows } = await db.query('SELECT 1 FROM artifacts WHERE id >= $1 AND id < $2 LIMIT 1', [prefix, prefixRangeEnd(prefix)]);
      return rows.length > 0;
    },

    async getArtifact(id) {
      const { rows } = await db.query<{ kind: string; content: Buffer }>('SELECT kind, content FROM artifacts WHERE id = $1', [id]);
      const row = rows[0];
      return row && { kind: row.kind, content: row.content.toString('utf8') };
    },

    recordModelCall: (r) => recordModelCall(db, r),

    // The reply and its accounting together, so neither exists without the other.
    recordModelReply: (transcriptId, seq, content, r) =>
      db.transaction(async (tx) => {
        await appendMessage(tx, transcriptId, seq, 'assistant', content);
        await recordModelCall(tx, r);
      }),

    async getModelCall(callKey) {
      const { rows } = await db.query(`SELECT ${MODEL_CALL_COLUMNS} FROM model_calls WHERE call_key = $1`, [callKey]);
      return rows[0] && fromRow<ModelCallRecord>(rows[0]);
    },

    async listModelCalls(workflowId) {
      const { rows } = await db.query(`SELECT ${MODEL_CALL_COLUMNS} FROM model_calls WHERE workflow_id = $1 ORDER BY created_at, call_key`, [workflowId]);
      return rows.map((r) => fromRow<ModelCallRecord>(r));
    },

    async recordPhase(r) {
      await db.query(
        `INSERT INTO phase_records (${PHASE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT DO NOTHING`,
        [r.key, r.workflowId, r.taskId, r.phase, r.state, r.turns, r.input, r.output, r.cacheRead, r.cacheWrite, r.costUsd, r.durationMs, r.model, r.commitSha],
      );
    },

    async listPhases(workflowId) {
      const { rows } = await db.query(`SELECT ${PHASE_COLUMNS} FROM phase_records WHERE workflow_id = $1 ORDER BY created_at, key`, [workflowId]);
      return rows.map((r) => fromRow<PhaseRecord>(r));
    },

    // Workers on several hosts may replay one cassette: the lock on (scope, cassette) makes each
    // claim see every earlier one, so no line goes to two calls.
    claimCassetteLine: (scope, cassette, callKey, candidates) =>
      db.transaction(async (tx) => {
        await lockUntilCommit(tx, 'cassette-claims', `${scope}\n${cassette}`);
        const held = await tx.query<{ line_no: number }>('SELECT line_no FROM cassette_claims WHERE scope = $1 AND cassette = $2 AND call_key = $3', [
          scope,
          cassette,
          callKey,
        ]);
        if (held.rows[0]) return held.rows[0].line_no;
        const taken = await tx.query<{ line_no: number }>('SELECT line_no FROM cassette_claims WHERE scope = $1 AND cassette = $2', [scope, cassette]);
        const takenLines = new Set(taken.rows.map((r) => r.line_no));
        const free = candidates.find((line) => !takenLines.has(line));
        if (free === undefined) return undefined;
        await tx.query('INSERT INTO cassette_claims (scope, cassette, line_no, call_key) VALUES ($1, $2, $3, $4)', [scope, cassette, free, callKey]);
        return free;
      }),
  };
}

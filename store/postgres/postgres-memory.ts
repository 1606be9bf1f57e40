/**
 * The memory tables in PostgreSQL (docs/production.md#the-shared-store): run memory and project
 * memory, answering as the SQLite MemoryStore does (store/sqlite/memory-store.ts).
 */
import { noteKey, type ProjectNote } from '../../core/roadmap/project-memory';
import type { RunMemoryEntry } from '../../core/run/run-memory';
import type { MemoryRecords } from '../dex-store';
import type { PostgresDb } from './postgres-db';

/** The memory tables of the database behind `db`. */
export function postgresMemory(db: PostgresDb): MemoryRecords {
  return {
    async putRunEntry(runKey, entry) {
      const { rowCount } = await db.query('INSERT INTO run_memory (run_key, task_id, entry) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
        runKey,
        entry.taskId,
        JSON.stringify(entry),
      ]);
      return rowCount === 1;
    },

    async runEntries(runKey, except) {
      // `ord` stands for SQLite's rowid: of two entries in one millisecond, the later written first.
      const { rows } = await db.query<{ entry: string }>(
        'SELECT entry FROM run_memory WHERE run_key = $1 AND task_id != $2 ORDER BY created_at DESC, ord DESC',
        [runKey, except ?? ''],
      );
      return rows.map((r) => JSON.parse(r.entry) as RunMemoryEntry);
    },

    async addNote(repoKey, kind, text) {
      const norm = noteKey(text);
      // A duplicate still draws an id from the sequence, as SQLite's AUTOINCREMENT does on INSERT OR IGNORE.
      const { rowCount } = await db.query('INSERT INTO project_memory (repo_key, kind, text, norm) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
        repoKey,
        kind,
        text,
        norm,
      ]);
      const { rows } = await db.query<{ id: number }>('SELECT id FROM project_memory WHERE repo_key = $1 AND kind = $2 AND norm = $3', [repoKey, kind, norm]);
      return { id: rows[0]!.id, added: rowCount === 1 };
    },

    async notes(repoKey) {
      const { rows } = await db.query<ProjectNote>('SELECT id, kind, text, created_at AS "createdAt" FROM project_memory WHERE repo_key = $1 ORDER BY id', [repoKey]);
      return rows;
    },

    async forget(repoKey, id) {
      const { rowCount } = await db.query('DELETE FROM project_memory WHERE repo_key = $1 AND id = $2', [repoKey, id]);
      return rowCount === 1;
    },
  };
}

/**
 * The memory tables beside the Store's own, in the same SQLite database
 * (docs/roadmaps.md#memory): run memory, one entry per roadmap run and landed task, and project
 * memory, the verify commands and notes kept per repository. Run memory is written once per key
 * (INSERT OR IGNORE), so a retried activity never stores it twice; notes are deduplicated by
 * their text (case and whitespace aside).
 */
import type Database from 'better-sqlite3';
import { noteKey, type ProjectNote } from '../../core/roadmap/project-memory';
import type { RunMemoryEntry } from '../../core/run/run-memory';
import { sideTables } from './side-tables';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS run_memory (
  run_key TEXT NOT NULL, task_id TEXT NOT NULL, entry TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  PRIMARY KEY (run_key, task_id));
CREATE TABLE IF NOT EXISTS project_memory (
  id INTEGER PRIMARY KEY AUTOINCREMENT, repo_key TEXT NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL,
  norm TEXT NOT NULL, created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  UNIQUE (repo_key, kind, norm));
`;

/** The memory tables of a store, created on first use. */
export const memoryStore = sideTables(SCHEMA, (db) => new MemoryStore(db));

/** Reads and keyed writes of the memory tables. */
class MemoryStore {
  constructor(private readonly db: Database.Database) {}

  /** Keeps a landed task's entry under its run; false when that run and task already had one. */
  putRunEntry(runKey: string, entry: RunMemoryEntry): boolean {
    return this.db
      .prepare('INSERT OR IGNORE INTO run_memory (run_key, task_id, entry) VALUES (?, ?, ?)')
      .run(runKey, entry.taskId, JSON.stringify(entry)).changes === 1;
  }

  /** A run's entries, the latest landed first; without `except`'s task. */
  runEntries(runKey: string, except?: string): RunMemoryEntry[] {
    const rows = this.db
      .prepare('SELECT entry FROM run_memory WHERE run_key = ? AND task_id != ? ORDER BY created_at DESC, rowid DESC')
      .all(runKey, except ?? '') as { entry: string }[];
    return rows.map((r) => JSON.parse(r.entry) as RunMemoryEntry);
  }

  /** Keeps a note (or a verify command) for a repository; its id, and whether it is new (false: it was kept already). */
  addNote(repoKey: string, kind: ProjectNote['kind'], text: string): { id: number; added: boolean } {
    const norm = noteKey(text);
    const added = this.db
      .prepare('INSERT OR IGNORE INTO project_memory (repo_key, kind, text, norm) VALUES (?, ?, ?, ?)')
      .run(repoKey, kind, text, norm).changes === 1;
    const row = this.db
      .prepare('SELECT id FROM project_memory WHERE repo_key = ? AND kind = ? AND norm = ?')
      .get(repoKey, kind, norm) as { id: number };
    return { id: row.id, added };
  }

  /** A repository's notes, oldest first. */
  notes(repoKey: string): ProjectNote[] {
    return this.db
      .prepare('SELECT id, kind, text, created_at AS createdAt FROM project_memory WHERE repo_key = ? ORDER BY id')
      .all(repoKey) as ProjectNote[];
  }

  /** Forgets note `id` of a repository; false when it has no such note. */
  forget(repoKey: string, id: number): boolean {
    return this.db.prepare('DELETE FROM project_memory WHERE repo_key = ? AND id = ?').run(repoKey, id).changes === 1;
  }
}

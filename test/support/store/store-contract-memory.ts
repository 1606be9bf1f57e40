/** The store contract's memory tables (test/support/store/store-contract.ts): run memory and project memory. */
import { beforeAll, describe, expect, it } from 'vitest';
import type { DexStore } from '../../../store/dex-store';
import { ISO_MS, runEntry, unique } from './store-contract-fixtures';

/** The memory-table tests, on the store `opened` gives once the contract has opened it. */
export function memoryTablesContract(opened: () => DexStore): void {
  describe('memory tables', () => {
    let store: DexStore;
    beforeAll(() => {
      store = opened();
    });

    it("keeps one entry per run and task, the latest first, without the asking task's", async () => {
      const run = unique('roadmap');
      expect(await store.memory.putRunEntry(run, runEntry('R1'))).toBe(true);
      expect(await store.memory.putRunEntry(run, runEntry('R2'))).toBe(true);
      expect(await store.memory.putRunEntry(run, runEntry('R3'))).toBe(true);
      expect(await store.memory.putRunEntry(run, { ...runEntry('R1'), title: 'a retried write, ignored' })).toBe(false);
      expect(await store.memory.putRunEntry(unique('roadmap'), runEntry('R1'))).toBe(true);

      expect(await store.memory.runEntries(run)).toEqual([runEntry('R3'), runEntry('R2'), runEntry('R1')]);
      expect((await store.memory.runEntries(run, 'R2')).map((e) => e.taskId)).toEqual(['R3', 'R1']);
      expect(await store.memory.runEntries(unique('roadmap'))).toEqual([]);
    });

    it("keeps a repository's notes once each (case and spacing aside), numbered in order, and forgets one", async () => {
      const repo = unique('repo');
      const first = await store.memory.addNote(repo, 'verify', 'npm test');
      expect(first.added).toBe(true);
      expect(await store.memory.addNote(repo, 'verify', '  NPM   test ')).toEqual({ id: first.id, added: false });
      const note = await store.memory.addNote(repo, 'note', 'npm test');
      expect(note.added).toBe(true);
      expect(note.id).toBeGreaterThan(first.id);
      const other = await store.memory.addNote(unique('repo'), 'note', 'npm test');
      expect(other.added).toBe(true);
      expect(other.id).toBeGreaterThan(note.id);

      const notes = await store.memory.notes(repo);
      expect(notes).toEqual([
        { id: first.id, kind: 'verify', text: 'npm test', createdAt: expect.stringMatching(ISO_MS) },
        { id: note.id, kind: 'note', text: 'npm test', createdAt: expect.stringMatching(ISO_MS) },
      ]);
      expect(await store.memory.forget(repo, other.id)).toBe(false);
      expect(await store.memory.forget(repo, first.id)).toBe(true);
      expect(await store.memory.forget(repo, first.id)).toBe(false);
      expect((await store.memory.notes(repo)).map((n) => n.id)).toEqual([note.id]);
      // A forgotten note's number is never given again.
      const again = await store.memory.addNote(repo, 'verify', 'npm test');
      expect(again.added).toBe(true);
      expect(again.id).toBeGreaterThan(other.id);
      expect((await store.memory.notes(repo)).map((n) => [n.id, n.kind])).toEqual([
        [note.id, 'note'],
        [again.id, 'verify'],
      ]);
    });
  });
}

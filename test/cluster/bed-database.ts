/**
 * The cluster test bed (scripts/cluster/bed.ts) for a test file that needs only its PostgreSQL
 * (test/cluster/bed-hook.ts), with fresh databases (test/cluster/test-database.ts) that are
 * all dropped at the end.
 */
import type pg from 'pg';
import { afterAll } from 'vitest';
import { restartDatabase, type BedState } from '../../scripts/cluster/bed';
import { useBed } from './bed-hook';
import { connectTo, createTestDatabase, type TestDatabase } from './test-database';

export interface BedDatabases {
  readonly bed: BedState;
  /** Creates an empty database; its URL, with the bed superuser's password in it. */
  create(): Promise<string>;
  /** A connection to `url` as the superuser, for looking behind a store's back. */
  connect(url: string): Promise<pg.Client>;
  /** pg_ctl restart -m fast: every connection to the bed's PostgreSQL is cut. */
  restartPostgres(): void;
}

export function useBedDatabases(prefix = 'dex_store'): BedDatabases {
  const hook = useBed();
  const made: TestDatabase[] = [];
  const need = () => hook.bed;

  afterAll(async () => {
    for (const database of made) await database.drop();
  });

  return {
    get bed() {
      return need();
    },
    create: async () => {
      const database = await createTestDatabase(need(), prefix);
      made.push(database);
      return database.url;
    },
    connect: connectTo,
    restartPostgres: () => restartDatabase(need()),
  };
}

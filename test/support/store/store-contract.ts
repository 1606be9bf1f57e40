/**
 * What every back end of the DexStore must answer, alike (docs/production.md#the-shared-store):
 * run by test/store/sqlite/sqlite-dex-store.test.ts on SQLite and test/cluster/postgres-store.cluster.ts on
 * PostgreSQL. One store serves every test of a run, so each test names its own keys (`unique`)
 * and never sees another's rows.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import type { DexStore } from '../../../store/dex-store';
import { layerTablesContract } from './store-contract-layers';
import { memoryTablesContract } from './store-contract-memory';
import { runRecordsContract } from './store-contract-run-records';

/** The behaviour tests every DexStore back end passes; `open` gives a store to run them on (closed at the end). */
export function describeStoreContract(name: string, open: () => Promise<DexStore>): void {
  describe(name, () => {
    let store: DexStore | undefined;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });
    const opened = () => {
      if (!store) throw new Error('the store is opened in beforeAll');
      return store;
    };

    runRecordsContract(opened);
    layerTablesContract(opened);
    memoryTablesContract(opened);
  });
}

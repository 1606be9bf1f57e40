/** The store contract (test/support/store/store-contract.ts) on the embedded SQLite store, in a temp file. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { openSqliteDexStore } from '../../../store/sqlite/sqlite-dex-store';
import { describeStoreContract } from '../../support/store/store-contract';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describeStoreContract('the SQLite store', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dex-store-'));
  dirs.push(dir);
  const store = openSqliteDexStore(join(dir, 'dex.db'));
  return store;
});

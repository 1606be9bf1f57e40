import { existsSync } from 'node:fs';
import type { DexStore } from '../store/dex-store';
import { openDexStore, openStoreFromEnv } from '../store/open-store';
import type { StoreSpec } from '../store/store-spec';

/**
 * Runs `use` on the store DEX_STORE names (this host's SQLite file by default,
 * docs/production.md#the-shared-store) and closes it, whatever `use` does: an open PostgreSQL
 * pool would keep the command's process alive.
 */
export async function withStore<T>(dexHome: string, use: (store: DexStore) => Promise<T>, env: NodeJS.ProcessEnv = process.env): Promise<T> {
  return using(await openStoreFromEnv(dexHome, env), use);
}

/**
 * As withStore, for commands that only read: an SQLite store whose file does not exist holds
 * nothing, so `missing` answers with its path instead of a new, empty file being created.
 */
export async function withExistingStore<T>(spec: StoreSpec, use: (store: DexStore) => Promise<T>, missing: (location: string) => Promise<T>): Promise<T> {
  if (spec.kind === 'sqlite' && !existsSync(spec.path)) return missing(spec.path);
  return using(await openDexStore(spec), use);
}

async function using<T>(store: DexStore, use: (store: DexStore) => Promise<T>): Promise<T> {
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

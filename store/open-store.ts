import type { DexStore } from './dex-store';
import { openPostgresDexStore } from './postgres/postgres-store';
import { openSqliteDexStore } from './sqlite/sqlite-dex-store';
import { parseStoreSpec, type StoreSpec } from './store-spec';

/** Opens the store `spec` names, creating or migrating its tables. */
export async function openDexStore(spec: StoreSpec): Promise<DexStore> {
  return spec.kind === 'sqlite' ? openSqliteDexStore(spec.path) : openPostgresDexStore(spec.url);
}

/** Opens the store DEX_STORE names in `env`, the embedded one under `dexHome` by default. */
export function openStoreFromEnv(dexHome: string, env: NodeJS.ProcessEnv = process.env): Promise<DexStore> {
  return openDexStore(parseStoreSpec(env.DEX_STORE, dexHome));
}

import { asyncMethods, type DexStore } from '../dex-store';
import type { LayerRecords, MemoryRecords, RunRecords } from '../records';
import { layerStore } from './layer-store';
import { memoryStore } from './memory-store';
import { Store } from './sqlite-store';

/**
 * The embedded store: one SQLite file on this host (`<DEX_HOME>/dex.db`), its synchronous
 * classes behind the asynchronous DexStore. Only this host can open it, so its layer targets run on
 * this host's queue.
 */
export function openSqliteDexStore(path: string): DexStore {
  const store = Store.open(path);
  // Typed against the contract (store/records.ts): a method the classes lack or type otherwise fails the type check here.
  const runs: RunRecords = asyncMethods(store, ['close']);
  const layers: LayerRecords = asyncMethods(layerStore(store));
  const memory: MemoryRecords = asyncMethods(memoryStore(store));
  return { ...runs, kind: 'sqlite', location: path, id: `sqlite:${path}`, layers, memory, close: () => Promise.resolve(store.close()) };
}

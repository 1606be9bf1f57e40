import { asyncMethods, type DexStore } from './dex-store';
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
  return {
    ...asyncMethods(store, ['close']),
    kind: 'sqlite',
    location: path,
    id: `sqlite:${path}`,
    layers: asyncMethods(layerStore(store)),
    memory: asyncMethods(memoryStore(store)),
    close: () => Promise.resolve(store.close()),
  } as DexStore;
}

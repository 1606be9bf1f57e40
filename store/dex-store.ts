/**
 * The store every activity and command uses (docs/production.md#the-shared-store): run records
 * (transcripts, tool results, artifacts, model-call and phase records, cassette claims), the
 * layer tables and the memory tables, behind one asynchronous interface with two back ends —
 * SQLite on one host (the embedded default, store/sqlite/sqlite-dex-store.ts) and PostgreSQL shared by
 * many hosts (store/postgres/postgres-store.ts). Every write is keyed and a second write of a key is
 * ignored, on both, so a retried activity never stores anything twice.
 */
import type { LayerRecords, MemoryRecords, RunRecords } from './records';

export type { LayerRecords, MemoryRecords, RunRecords } from './records';

/** `T`'s methods, each returning a promise of what it returned. */
type Async<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};


/** Which back end holds a store. */
type StoreKind = 'sqlite' | 'postgres';

export interface DexStore extends RunRecords {
  readonly kind: StoreKind;
  /** Where it is, fit to print: a file path, or a PostgreSQL URL without its password. */
  readonly location: string;
  /**
   * The store's identity, the same for every worker that opens it: a shared store's queue is named
   * after it, so only workers on that store take its layer targets (docs/production.md#the-shared-store).
   */
  readonly id: string;
  readonly layers: LayerRecords;
  readonly memory: MemoryRecords;
  close(): Promise<void>;
}

/**
 * `target` with each of its prototype's methods returning a promise: the SQLite classes are
 * synchronous (better-sqlite3), and this is how they meet the asynchronous interface.
 */
export function asyncMethods<T extends object>(target: T, except: string[] = []): Async<T> {
  const wrapped: Record<string, unknown> = {};
  for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(target))) {
    if (name === 'constructor' || except.includes(name)) continue;
    const method = (target as Record<string, unknown>)[name];
    if (typeof method !== 'function') continue;
    wrapped[name] = (...args: unknown[]) => {
      try {
        return Promise.resolve((method as (...a: unknown[]) => unknown).apply(target, args));
      } catch (err) {
        return Promise.reject(err);
      }
    };
  }
  return wrapped as Async<T>;
}

/**
 * The queue of a shared store's layer activities, `<taskQueue>@store-<id>`: every worker on the
 * store polls it, so a layer's targets run on any of them (docs/production.md#the-shared-store).
 * An SQLite store has none: only its host can open it, so its activities stay on the host queue.
 */
export function sharedStoreQueue(taskQueue: string, store: Pick<DexStore, 'kind' | 'id'>): string | undefined {
  return store.kind === 'postgres' ? `${taskQueue}@store-${store.id}` : undefined;
}

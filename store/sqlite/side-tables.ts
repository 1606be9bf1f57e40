import type Database from 'better-sqlite3';
import type { Store } from './sqlite-store';

/**
 * Tables of one area (layers, memory) kept beside the Store's own in the same SQLite database:
 * `schema` is created on first use of each Store, and the area's accessor built once per Store.
 */
export function sideTables<T>(schema: string, make: (db: Database.Database) => T): (store: Store) => T {
  const opened = new WeakMap<Store, T>();
  return (store) => {
    let found = opened.get(store);
    if (!found) {
      store.database.exec(schema);
      found = make(store.database);
      opened.set(store, found);
    }
    return found;
  };
}

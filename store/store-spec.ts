import { join } from 'node:path';
import { InvalidInput } from '../core/run/invalid-input';
import { redactUrl } from './redact-url';

/**
 * What DEX_STORE names (docs/production.md#the-shared-store): unset or `sqlite`, the embedded
 * store under DEX_HOME; `sqlite:PATH`, an SQLite file elsewhere; `postgres://…` or
 * `postgresql://…`, a PostgreSQL database shared by every host that names it.
 */
export type StoreSpec = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

/** Reads DEX_STORE; a value it cannot read is InvalidInput (exit 2, nothing opened). */
export function parseStoreSpec(value: string | undefined, dexHome: string): StoreSpec {
  const spec = value?.trim() ?? '';
  if (spec === '' || spec === 'sqlite') return { kind: 'sqlite', path: sqliteStorePath(dexHome) };
  if (spec.startsWith('sqlite:')) {
    const path = spec.slice('sqlite:'.length);
    if (!path) throw new InvalidInput('DEX_STORE=sqlite:PATH needs a file path after the colon');
    return { kind: 'sqlite', path };
  }
  if (/^postgres(ql)?:\/\//.test(spec)) {
    try {
      new URL(spec);
    } catch {
      throw new InvalidInput(`DEX_STORE is not a valid PostgreSQL URL: ${redactUrl(spec)}`);
    }
    return { kind: 'postgres', url: spec };
  }
  throw new InvalidInput(`unknown DEX_STORE "${redactUrl(spec)}": use sqlite, sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DATABASE`);
}

/** The embedded store's file under `dexHome`. */
function sqliteStorePath(dexHome: string): string {
  return join(dexHome, 'dex.db');
}

/**
 * The shared store (docs/production.md#the-shared-store): one PostgreSQL database that workers
 * on many hosts open with `DEX_STORE=postgres://USER:PASSWORD@HOST:PORT/DATABASE`, answering
 * every method as the embedded SQLite store does. Opening it migrates the schema
 * (store/postgres/postgres-migrations.ts); statements run on a small pool that survives the database
 * restarting (store/postgres/postgres-db.ts).
 */
import { InvalidInput } from '../../core/run/invalid-input';
import { ServerUnreachable } from '../../core/run/server-unreachable';
import type { DexStore } from '../dex-store';
import { createPool, PostgresDb } from './postgres-db';
import { postgresLayers } from './postgres-layers';
import { postgresMemory } from './postgres-memory';
import { migrate } from './postgres-migrations';
import { isRetryable, retriedOnce } from './postgres-retry';
import { postgresRunRecords } from './postgres-run-records';
import { redactUrl } from '../redact-url';

interface PostgresStoreOptions {
  /** Hears the pool's notices (an idle connection the server dropped); stderr by default. */
  log?: (line: string) => void;
}

/**
 * Opens the store in the database at `url`, migrating it first. A database that cannot be
 * reached or migrated is one error line naming it (without its password).
 */
export async function openPostgresDexStore(url: string, options: PostgresStoreOptions = {}): Promise<DexStore> {
  const location = redactUrl(url);
  const log = options.log ?? ((line: string) => console.warn(line));
  const pool = createPool(url, (err) =>
    log(`dex store: PostgreSQL at ${location} dropped an idle connection (${describeError(err, url)}); the next statement opens a new one`),
  );
  const db = new PostgresDb(pool);
  let id: string;
  try {
    id = await retriedOnce(() =>
      db.connected(async (client) => {
        await migrate(client);
        return (await client.query<{ store_id: string }>('SELECT store_id FROM dex_store_meta')).rows[0]!.store_id;
      }),
    );
  } catch (err) {
    await pool.end().catch(() => {});
    throw openFailure(`cannot open the PostgreSQL store at ${location}: ${describeError(err, url)}`, err);
  }
  let closing: Promise<void> | undefined;
  return {
    ...postgresRunRecords(db),
    kind: 'postgres',
    location,
    id,
    layers: postgresLayers(db),
    memory: postgresMemory(db),
    // Idempotent, as closing the SQLite store is: a pool ends once.
    close: () => (closing ??= db.end()),
  };
}

/**
 * `err` as one line, without the URL's password: node-postgres words some failures with the
 * connection settings, and a host with several addresses fails with an AggregateError whose
 * own message is empty.
 */
function describeError(err: unknown, url: string): string {
  const parts = err instanceof AggregateError && err.errors.length > 0 ? err.errors : [err];
  const text = [...new Set(parts.map((e) => (e instanceof Error ? e.message || (e as { code?: string }).code || e.name : String(e))))].join('; ');
  const password = passwordOf(url);
  const hidden = password ? text.split(password).join('***') : text;
  return hidden.replace(/\s*\n\s*/g, ' ');
}

function passwordOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).password);
  } catch {
    return '';
  }
}

/** SQLSTATEs that say DEX_STORE itself is wrong: a bad user or password, a database that does not exist. */
const WRONG_SETTING = new Set(['28P01', '28000', '3D000']);

/**
 * Why the store could not be opened, as the CLI reports it: a database out of reach exits 3 like
 * an unreachable Temporal server, a wrong DEX_STORE exits 2 like any bad input, anything else 1.
 */
function openFailure(message: string, err: unknown): Error {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && WRONG_SETTING.has(code)) return new InvalidInput(message);
  if (isRetryable(err)) return new ServerUnreachable(message);
  return new Error(message, { cause: err });
}

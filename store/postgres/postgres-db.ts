/**
 * The PostgreSQL store's connection pool and the two ways its modules use it: one statement, or
 * a transaction on one connection (docs/production.md#the-shared-store). Both are tried once more
 * when the connection is lost (store/postgres/postgres-retry.ts), and a lost connection never reaches
 * the process as an unhandled 'error' event: a database restart must not take a worker down.
 */
import pg from 'pg';
import { retriedOnce } from './postgres-retry';

type Row = pg.QueryResultRow;

/** What a statement runs on: the pool, or a transaction's connection. */
export interface Sql {
  query<R extends Row = Row>(text: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
}

/** Connections one process keeps: a worker runs a handful of activities at once, and many workers share one server. */
const POOL_MAX = 5;

/** Connecting to a host that does not answer fails after this long, instead of hanging an activity. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * node-postgres returns bigint (int8) as a string, since it may not fit a JS number; the store's
 * integers (token counts, sequence numbers, COUNT(*)) always do, and SQLite returns numbers.
 */
const INT8_OID = 20;
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** A pool for `url`; `onIdleError` hears each idle connection the server dropped (the pool has already let it go). */
export function createPool(url: string, onIdleError: (err: Error) => void): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_MAX,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // TCP keepalive after 10 s idle, not the kernel's two hours: a pooled connection to a database
    // host that vanished without closing it (a crash, a network cut) is found dead and replaced.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    application_name: 'dex',
    types,
  });
  // Without a listener, an idle connection cut by a server restart is an uncaught 'error' that ends the process.
  pool.on('error', onIdleError);
  return pool;
}

/** The store's way to PostgreSQL: statements and transactions, each tried once more when the connection is lost. */
export class PostgresDb implements Sql {
  constructor(private readonly pool: pg.Pool) {}

  query<R extends Row = Row>(text: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    return retriedOnce(() => this.pool.query<R>(text, params));
  }

  /** Runs `work` in one transaction (READ COMMITTED), committed when it resolves and rolled back when it throws. */
  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    return retriedOnce(() =>
      this.connected(async (client) => {
        await client.query('BEGIN');
        try {
          const result = await work({ query: (text, params) => client.query(text, params) });
          await client.query('COMMIT');
          return result;
        } catch (err) {
          // On a lost connection ROLLBACK fails too, and the pool then closes the connection.
          await client.query('ROLLBACK').catch(() => {});
          throw err;
        }
      }),
    );
  }

  /** Runs `work` on a connection of its own, given back to the pool after (closed, if it broke). */
  async connected<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // A connection cut while we hold it emits 'error' on the client, which the pool does not
    // listen to until it is back: unheard, that event would end the process. The statement in
    // flight fails with the same error, so noting it is enough.
    let broken = false;
    const onError = () => (broken = true);
    client.on('error', onError);
    try {
      return await work(client);
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

/**
 * Holds, until the transaction ends, the lock on `key` among `purpose`'s keys: processes on any
 * host that share the database wait for each other on it (a salience topic, a cassette). Keys
 * are hashed, so two keys may share a lock; that only makes one wait for the other.
 */
export async function lockUntilCommit(tx: Sql, purpose: string, key: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [`dex.${purpose}`, key]);
}

/**
 * A fresh PostgreSQL database on the cluster test bed (scripts/cluster/bed.ts), made through the
 * bed's superuser and dropped by its owner at the end.
 *
 * It sorts text by ICU's en-US rules, not the bed's C locale, so a store that relied on the
 * database's collation for its orderings (SQLite compares bytes) would show it.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { BedState } from '../../scripts/cluster/bed';

export interface TestDatabase {
  readonly name: string;
  /** postgres://USER:PASSWORD@127.0.0.1:PORT/NAME, as the bed's superuser. */
  readonly url: string;
  /** Drops it, cutting any connection still open to it. */
  drop(): Promise<void>;
}

/** The URL of database `name` on the bed, as its superuser. */
export function bedDatabaseUrl(bed: BedState, name: string): string {
  const { user, password, port } = bed.pg;
  return `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${name}`;
}

/** A connection to `url`; a restart of the bed cuts it without crashing the test process. */
export async function connectTo(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  return client;
}

async function asSuperuser(bed: BedState, sql: string): Promise<void> {
  const client = await connectTo(bedDatabaseUrl(bed, 'postgres'));
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates an empty database named `<prefix>_<random hex>`. */
export async function createTestDatabase(bed: BedState, prefix = 'dex_test'): Promise<TestDatabase> {
  if (!/^[a-z_][a-z0-9_]*$/.test(prefix)) throw new Error(`database prefix "${prefix}" is not a plain lower-case SQL name`);
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await asSuperuser(bed, `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C'`);
  return { name, url: bedDatabaseUrl(bed, name), drop: () => asSuperuser(bed, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** A server dex needs (Temporal, or a PostgreSQL store) cannot be reached: the CLI exits 3. */
export class ServerUnreachable extends Error {
  override name = 'ServerUnreachable';
}

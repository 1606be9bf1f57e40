/** Bad input or usage: the CLI exits 2 and nothing was started. */
export class InputError extends Error {
  override name = 'InputError';
}

/** The Temporal server cannot be reached: the CLI exits 3. */
export class ServerUnreachable extends Error {
  override name = 'ServerUnreachable';
}

import { ensureTemporalCli, ensureTestServer } from '../client/server/toolchain';

/** Installs (once, into the cache outside the clone) the real servers the tests run against. */
export default function setup(): void {
  ensureTemporalCli((line) => console.log(line));
  ensureTestServer((line) => console.log(line));
}

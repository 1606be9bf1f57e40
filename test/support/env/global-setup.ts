import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTemporalCli, ensureTestServer } from '../../../client/toolchain/toolchain';

/**
 * Installs (once, into the cache outside the clone) the real servers the tests run against, and
 * gives the suite a temp folder of its own, removed when the suite ends: every folder a test or a
 * process it starts makes with `tmpdir()` goes there (TMPDIR is inherited). Without it, each `npm
 * test` left about 670 folders in /tmp (sample repositories, dex homes, cassettes), 17 GB after a
 * few weeks of runs on the development machine.
 */
export default function setup(): () => void {
  ensureTemporalCli((line) => console.log(line));
  ensureTestServer((line) => console.log(line));
  const root = mkdtempSync(join(tmpdir(), 'dex-suite-'));
  process.env.TMPDIR = root;
  return () => {
    try {
      rmSync(root, { recursive: true, force: true });
    } catch (err) {
      console.warn(`dex tests: could not remove their temp folder ${root}: ${(err as Error).message}`);
    }
  };
}

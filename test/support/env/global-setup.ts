import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
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
export default function setup(): () => Promise<void> {
  ensureTemporalCli((line) => console.log(line));
  ensureTestServer((line) => console.log(line));
  const root = mkdtempSync(join(tmpdir(), 'dex-suite-'));
  process.env.TMPDIR = root;
  return async () => {
    // GNU rm removes a tree past PATH_MAX (the unsandboxed escape corpus's 3,000 folders), which Node's rmSync cannot
    // name; it runs on after the suite (its gigabytes took ~7 s), so the command ends when the tests do.
    const rm = spawn('rm', ['-rf', root], { detached: true, stdio: 'ignore' });
    rm.on('error', (err) => console.warn(`dex tests: could not remove their temp folder ${root}: ${err.message}`));
    rm.unref();
    await new Promise((resolve) => setImmediate(resolve)); // a spawn error (no rm) is reported before the process ends
  };
}

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureTestServerArchive, TEST_SERVER_WRAPPER, writeWrapper } from '../../../client/toolchain/test-server-jvm';
import { ensureTestServer, testServerDir } from '../../../client/toolchain/toolchain';
import { portOpen } from '../../../host/local-ports';

/** A copy of the test server's install (its lib/ linked, not copied) with an old wrapper. */
function install(): string {
  ensureTestServer();
  const dir = mkdtempSync(join(tmpdir(), 'dex-test-server-'));
  symlinkSync(join(testServerDir(), 'lib'), join(dir, 'lib'));
  writeFileSync(join(dir, 'test-server'), '#!/bin/sh\nexec java -cp "$(dirname "$0")/lib/*" io.temporal.testserver.TestServer "$@"\n', { mode: 0o755 });
  return dir;
}

/** Starts the install's wrapper as the SDK does; resolves once it takes connections, with the JVM's command line. */
async function startsThrough(dir: string): Promise<string> {
  const port = 20_000 + Math.floor(Math.random() * 10_000);
  const server = spawn(join(dir, 'test-server'), [String(port), '--enable-time-skipping'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  server.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (await portOpen(port)) break;
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the test server did not start: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(stderr).not.toMatch(/cds|shared archive/i);
    return readFileSync(`/proc/${server.pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } finally {
    server.kill('SIGKILL');
  }
}

describe("the test server's JVM", () => {
  it('replaces an older wrapper, makes the class-data archive once, and starts with it', { timeout: 90_000 }, async () => {
    const dir = install();
    writeWrapper(dir);
    expect(readFileSync(join(dir, 'test-server'), 'utf8')).toBe(TEST_SERVER_WRAPPER);
    expect(await startsThrough(dir)).not.toContain('SharedArchiveFile'); // no archive yet: started without

    await ensureTestServerArchive(dir);
    const archive = join(dir, 'classes.jsa');
    expect(statSync(archive).size).toBeGreaterThan(1_000_000);
    const made = statSync(archive).mtimeMs;
    await ensureTestServerArchive(dir);
    expect(statSync(archive).mtimeMs).toBe(made); // once

    const line = await startsThrough(dir);
    expect(line).toContain(`-XX:SharedArchiveFile=${archive}`);
    expect(line).toContain('-XX:TieredStopAtLevel=1');
  });

  it('starts the server silently without the archive when the JVM cannot use it', { timeout: 60_000 }, async () => {
    const dir = install();
    writeWrapper(dir);
    writeFileSync(join(dir, 'classes.jsa'), 'not an archive');
    expect(await startsThrough(dir)).toContain('SharedArchiveFile');
    expect(existsSync(join(dir, 'classes.jsa'))).toBe(true);
  });
});

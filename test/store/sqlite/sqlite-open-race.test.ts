/** Processes that open one new SQLite store at the same moment: each must open it (store/sqlite/sqlite-store.ts useWriteAheadLog). */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'dex-open-race-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('four processes opening the same new store file together all open it, round after round', { timeout: 60_000 }, async () => {
  // Before the switch to WAL waited for its lock, 17 to 27 of these 160 opens failed with "database is locked".
  const rounds = 40;
  const startAt = Date.now() + 4_000; // after every process has loaded tsx and the store's modules
  const script = join(__dirname, '..', '..', 'fixtures', 'open-store-rounds.ts');
  const outputs = await Promise.all(
    [1, 2, 3, 4].map(() =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', script, dir, String(startAt), String(rounds), '100'], { timeout: 50_000 }),
    ),
  );
  const failures = outputs.flatMap(({ stdout }) => (JSON.parse(stdout) as { failures: string[] }).failures);
  expect(failures).toEqual([]);
});

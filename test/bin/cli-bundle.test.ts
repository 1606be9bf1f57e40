import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDex } from '../support/env/dex-cli';

// bin/cli-bundle.js: the CLI as one file, bundled once per code version into dex's cache.

const scratch = () => mkdtempSync(join(tmpdir(), 'dex-cli-bundle-'));

/** `dex sheet` of a sheet with an unknown key: refused after reading the sheet schema, a file the CLI finds by its own folder. */
async function refusedSheet(env: NodeJS.ProcessEnv) {
  const sheet = join(scratch(), 'cmd.sheet.yaml');
  writeFileSync(sheet, 'statements:\n  - { id: a, run: shell, cmd: "echo" }\n');
  const run = await runDex(['sheet', sheet], { env: { TEMPORAL_ADDRESS: '127.0.0.1:1', DEX_HOME: scratch(), ...env } });
  return { ...run, stderr: run.stderr.replaceAll(sheet, 'SHEET') };
}

describe('the CLI bundle', () => {
  it('is built once into dex cache, then loaded; it finds the files its sources read by path', async () => {
    const cache = scratch();
    expect((await runDex(['help'], { env: { DEX_CACHE: cache } })).code).toBe(0);
    const dir = join(cache, 'cli-bundles');
    const built = readdirSync(dir).sort();
    expect(built).toEqual([expect.stringMatching(/^[0-9a-f]{16}\.js$/), expect.stringMatching(/^[0-9a-f]{16}\.js\.map$/)]);
    const bundle = join(dir, built[0]);
    expect(readFileSync(bundle, 'utf8')).toContain(`sourceMappingURL=${built[1]}`);
    const at = statSync(bundle).mtimeMs;

    const bundled = await refusedSheet({ DEX_CACHE: cache });
    expect(statSync(bundle).mtimeMs).toBe(at); // loaded, not built again
    expect(readdirSync(dir)).toHaveLength(2);
    expect(bundled.code, bundled.stderr).toBe(2);
    expect(bundled.stderr).toMatch(/^dex: SHEET:2:26: statement "a" \(statements\[0\]\): unknown key "cmd"/);

    // The same command through tsx says the same.
    const fromSource = await refusedSheet({ DEX_CACHE: cache, DEX_CLI_FROM_SOURCE: '1' });
    expect(fromSource).toEqual(bundled);
  });

  it('runs the CLI through tsx when the cache cannot be written', async () => {
    const notAFolder = join(scratch(), 'file');
    writeFileSync(notAFolder, '');
    const run = await refusedSheet({ DEX_CACHE: notAFolder });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/unknown key "cmd"/);
  });
});

import { bundleWorkflowCode } from '@temporalio/worker';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workflowBundle } from '../../worker/start-worker';
import { bundleCodeBuiltOnce } from '../../worker/workflow-bundle-file';
import { silentLogger } from '../support/env/dev-server-env';

describe('the workflow bundle', () => {
  it('bundles every workflow dex registers', async () => {
    const bundle = await workflowBundle();
    expect(bundle.code).toContain('taskWorkflow');
    expect(bundle.code.length).toBeGreaterThan(10_000);
  });

  it('is built once per code version into dex\'s cache and read from there; a cache dex cannot write costs only the reuse', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'dex-bundle-cache-'));
    const code = await bundleCodeBuiltOnce({ DEX_CACHE: cache });
    const [file, ...others] = readdirSync(join(cache, 'workflow-bundles'));
    expect(others).toEqual([]);
    expect(readFileSync(join(cache, 'workflow-bundles', file), 'utf8')).toBe(code);
    writeFileSync(join(cache, 'workflow-bundles', file), `${code}\n// read from the cache`);
    expect(await bundleCodeBuiltOnce({ DEX_CACHE: cache })).toBe(`${code}\n// read from the cache`);

    // A file where the cache folder should be: nothing can be written under it.
    const blocked = join(cache, 'not-a-folder');
    writeFileSync(blocked, '');
    expect(await bundleCodeBuiltOnce({ DEX_CACHE: blocked })).toBe(code);
  });

  it('refuses workflow code that imports a Node built-in, as a worker would at start-up', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dex-bundle-'));
    const file = join(dir, 'bad-workflow.ts');
    writeFileSync(file, "import { readFileSync } from 'node:fs';\nexport async function bad(): Promise<string> { return readFileSync('/etc/hostname', 'utf8'); }\n");
    await expect(bundleWorkflowCode({ workflowsPath: file, logger: silentLogger })).rejects.toThrow(/Webpack finished with errors/);
  });
});

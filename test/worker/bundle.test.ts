import { bundleWorkflowCode } from '@temporalio/worker';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workflowBundle } from '../../worker/start-worker';
import { silentLogger } from '../support/env/dev-server-env';


describe('the workflow bundle', () => {
  it('bundles every workflow dex registers', async () => {
    const bundle = await workflowBundle();
    expect(bundle.code).toContain('taskWorkflow');
    expect(bundle.code.length).toBeGreaterThan(10_000);
  });

  it('refuses workflow code that imports a Node built-in, as a worker would at start-up', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dex-bundle-'));
    const file = join(dir, 'bad-workflow.ts');
    writeFileSync(file, "import { readFileSync } from 'node:fs';\nexport async function bad(): Promise<string> { return readFileSync('/etc/hostname', 'utf8'); }\n");
    await expect(bundleWorkflowCode({ workflowsPath: file, logger: silentLogger })).rejects.toThrow(/Webpack finished with errors/);
  });
});

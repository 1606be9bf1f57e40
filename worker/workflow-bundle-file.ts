import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dexCacheDir } from '../host/cache-dir';
import { tracedWorkflowModules } from '../tracing/worker-tracing';
import { workflowCodeVersion } from './workflow-code-version';

/**
 * The workflow bundle's code for a background workflow host (client/server/shared-host.ts), built
 * once per code version into dex's cache by a child process, so the host never holds the bundler:
 * bundling in the host left it ~250 MB larger than loading the built file
 * (docs/performance.md#background-workflow-hosts), and a host that comes back after idling starts
 * in about a second instead of bundling again.
 */
export function cachedBundleCode(env: NodeJS.ProcessEnv = process.env): string {
  return (loaded ??= loadOrBuild(env));
}

let loaded: string | undefined;

function loadOrBuild(env: NodeJS.ProcessEnv): string {
  const modules = tracedWorkflowModules();
  const key = createHash('sha256').update(workflowCodeVersion()).update(modules.join('\n')).digest('hex').slice(0, 16);
  const file = join(dexCacheDir(env), 'workflow-bundles', `${key}.js`);
  try {
    return readFileSync(file, 'utf8');
  } catch {
    // Not built yet: build it below.
  }
  mkdirSync(join(dexCacheDir(env), 'workflow-bundles'), { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  execFileSync(process.execPath, ['-r', require.resolve('tsx/cjs'), __filename, partial, ...modules], { stdio: ['ignore', 'ignore', 'inherit'] });
  renameSync(partial, file);
  return readFileSync(file, 'utf8');
}

/** The child: bundles the workflows with `modules` as interceptors into `out`. */
async function buildInto(out: string, modules: string[]): Promise<void> {
  const { bundleWorkflowCode } = await import('@temporalio/worker');
  const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error };
  const bundle = await bundleWorkflowCode({ workflowsPath: join(__dirname, '..', 'workflows', 'index.ts'), workflowInterceptorModules: modules, logger: quiet });
  writeFileSync(out, bundle.code);
}

if (require.main === module) {
  const [out, ...modules] = process.argv.slice(2);
  buildInto(out, modules).catch((err: unknown) => {
    console.error(`bundling the workflows: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dexCacheDir } from '../host/cache-dir';
import { tracedWorkflowModules } from '../tracing/worker-tracing';
import { workflowCodeVersion } from './workflow-code-version';

/**
 * The workflow bundle's code, built once per code version into dex's cache and loaded from there
 * by every worker after. A background workflow host (client/server/shared-host.ts) has a child
 * process build it, so the host never holds the bundler: bundling in the host left it ~250 MB
 * larger than loading the built file (docs/performance.md#background-workflow-hosts), and a host
 * that comes back after idling starts in about a second instead of bundling again.
 */
export function cachedBundleCode(env: NodeJS.ProcessEnv = process.env): string {
  return (loaded ??= readBuilt(env) ?? buildInChild(env));
}

let loaded: string | undefined;

/**
 * The same for a worker that may bundle in itself (`dex run`, `dex worker`): it builds the file
 * when it is not there yet, and loads it otherwise, ~1.7 s sooner on 2 cores than bundling again
 * (docs/performance.md#the-workflow-bundle-from-the-cache).
 */
export async function bundleCodeBuiltOnce(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const built = readBuilt(env);
  if (built !== undefined) return built;
  const modules = tracedWorkflowModules();
  const code = await bundled(modules);
  try {
    const { file } = bundleFile(env);
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, code);
    // Two processes may build at once: each renames a whole file into place, and either is the same.
    renameSync(partial, file);
  } catch {
    // A cache dex cannot write (a read-only home): this worker runs what it bundled, the next bundles again.
  }
  return code;
}

/** Where this code version's bundle goes, and the interceptor modules it is built with. */
function bundleFile(env: NodeJS.ProcessEnv): { file: string; modules: string[] } {
  const modules = tracedWorkflowModules();
  const key = createHash('sha256').update(workflowCodeVersion()).update(modules.join('\n')).digest('hex').slice(0, 16);
  const dir = join(dexCacheDir(env), 'workflow-bundles');
  mkdirSync(dir, { recursive: true });
  return { file: join(dir, `${key}.js`), modules };
}

function readBuilt(env: NodeJS.ProcessEnv): string | undefined {
  try {
    return readFileSync(bundleFile(env).file, 'utf8');
  } catch {
    return undefined; // not built yet
  }
}

function buildInChild(env: NodeJS.ProcessEnv): string {
  const { file, modules } = bundleFile(env);
  const partial = `${file}.${process.pid}.partial`;
  execFileSync(process.execPath, ['-r', require.resolve('tsx/cjs'), __filename, partial, ...modules], { stdio: ['ignore', 'ignore', 'inherit'] });
  renameSync(partial, file);
  return readFileSync(file, 'utf8');
}

/** The workflows bundled with `modules` as interceptors; bundling checks that workflow code imports nothing forbidden. */
async function bundled(modules: string[]): Promise<string> {
  const { bundleWorkflowCode } = await import('@temporalio/worker');
  const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error };
  return (await bundleWorkflowCode({ workflowsPath: join(__dirname, '..', 'workflows', 'index.ts'), workflowInterceptorModules: modules, logger: quiet })).code;
}

/** The child: bundles the workflows into `out`. */
async function buildInto(out: string, modules: string[]): Promise<void> {
  writeFileSync(out, await bundled(modules));
}

if (require.main === module) {
  const [out, ...modules] = process.argv.slice(2);
  buildInto(out, modules).catch((err: unknown) => {
    console.error(`bundling the workflows: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}

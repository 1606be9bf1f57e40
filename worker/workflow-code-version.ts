import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
/** What the workflow bundle is built from: workflow code, the core it imports, tracing's interceptors. */
const BUNDLED = ['workflows', 'core', 'tracing'];

let version: string | undefined;

/**
 * A short hash of the code a workflow worker runs, with the SDK's version. A workflow host that
 * outlives the command that started it (docs/architecture.md#who-serves-a-run) names it in its
 * identity, so a command of another version of dex knows to replace it: two versions serving one
 * queue would replay each other's runs with different code.
 */
export function workflowCodeVersion(): string {
  if (version) return version;
  const hash = createHash('sha256');
  for (const dir of BUNDLED) for (const file of sourceFiles(join(ROOT, dir))) hash.update(file).update(readFileSync(file));
  hash.update(JSON.parse(readFileSync(require.resolve('@temporalio/workflow/package.json'), 'utf8')).version);
  return (version = hash.digest('hex').slice(0, 10));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(path);
      return /\.[cm]?[jt]s$/.test(entry.name) ? [path] : [];
    });
}

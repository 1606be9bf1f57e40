import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Node's WebAssembly reserves about 10 GiB of address space for each memory (its trap handler's
 * guard regions), more than a config's `limits.memoryMb` may let a process have (dex's default was
 * 4 GiB): without this flag `fetch` (undici's parser is WebAssembly) and any wasm fail there with
 * "WebAssembly.instantiate(): Out of memory" (docs/security.md#1-every-command-the-agent-causes-runs-in-bubblewrap).
 * Bounds checks in code cost a little speed; the limit stays.
 */
const FLAG = '--disable-wasm-trap-handler';

const accepted = new Map<string, boolean>();

/** The node a sandboxed command with this PATH runs (the sandbox mounts the same paths). */
function nodeOn(path: string): string | undefined {
  for (const dir of path.split(':')) {
    if (dir && existsSync(join(dir, 'node'))) return realpathSync(join(dir, 'node'));
  }
  return undefined;
}

/**
 * `NODE_OPTIONS` for a sandboxed command whose PATH is `path`, when the node it finds takes the
 * flag there (Node 20.15 and later, 22.2 and later); an older node gets nothing it would refuse.
 * Asked once per node binary.
 */
export function wasmNodeOptions(path: string, current?: string): Record<string, string> {
  const node = nodeOn(path);
  if (!node) return {};
  if (!accepted.has(node)) {
    let ok = false;
    try {
      execFileSync(node, ['-e', '0'], { env: { NODE_OPTIONS: FLAG }, stdio: 'ignore', timeout: 10_000 });
      ok = true;
    } catch {
      // Not allowed in NODE_OPTIONS by this node: leave it as it was.
    }
    accepted.set(node, ok);
  }
  if (!accepted.get(node)) return {};
  return { NODE_OPTIONS: current ? `${FLAG} ${current}` : FLAG };
}

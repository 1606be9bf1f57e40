import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where dex keeps what it installs and caches on a host: outside any clone, reused across clones. */
export function dexCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.DEX_CACHE ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'dex');
}

/** The dependency cache of task worktrees (docs/real-repositories.md#the-cache). */
export function dependencyCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.DEX_DEPS_CACHE ?? join(dexCacheDir(env), 'deps');
}

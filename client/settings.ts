import { hostname, homedir } from 'node:os';
import { join } from 'node:path';
import { parseStoreSpec, type StoreSpec } from '../store/store-spec';

/** Where to find Temporal and where dex keeps its files, from the environment (docs/interfaces.md#plans-workflows-and-ids). */
export interface Settings {
  /** TEMPORAL_ADDRESS; undefined means: start or reuse the embedded dev server. */
  address?: string;
  /** @default "default" */
  namespace: string;
  /** @default "dex" */
  taskQueue: string;
  /** The task queue of this host's worktrees and store. @default "<taskQueue>@<hostname>" */
  hostQueue: string;
  /** dex's own files on this host (store, worktrees, dev server database). @default "~/.dex" */
  dexHome: string;
  /** The store DEX_STORE names, parsed once here (docs/production.md#the-shared-store). @default the SQLite file in dexHome */
  store: StoreSpec;
}

/** Reads the settings from `env`; a DEX_STORE dex cannot read is an input error (exit 2). */
export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const taskQueue = env.DEX_TASK_QUEUE || 'dex';
  const dexHome = env.DEX_HOME || join(homedir(), '.dex');
  return {
    address: env.TEMPORAL_ADDRESS || undefined,
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue,
    hostQueue: env.DEX_HOST_QUEUE || `${taskQueue}@${hostname()}`,
    dexHome,
    store: parseStoreSpec(env.DEX_STORE, dexHome),
  };
}

/** The embedded dev server's address and Web UI (docs/interfaces.md#plans-workflows-and-ids). */
export const EMBEDDED_ADDRESS = '127.0.0.1:7233';
export const EMBEDDED_UI = 'http://127.0.0.1:8233';

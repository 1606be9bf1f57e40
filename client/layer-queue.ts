import { sharedStoreQueue } from '../store/dex-store';
import { parseStoreSpec } from '../store/open-store';
import { withStore } from './command-store';
import type { Settings } from './settings';

/**
 * The queue of a layer run's activities (docs/layers.md#running-targets-at-once): a detached run
 * on a shared store goes to the store's queue, where every worker on that store takes its
 * targets; any other run stays on the host queue of `settings` (this host's, or the command's own).
 */
export async function layerActivityQueue(settings: Settings, detach: boolean | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (!detach || parseStoreSpec(env.DEX_STORE, settings.dexHome).kind !== 'postgres') return settings.hostQueue;
  return withStore(settings.dexHome, async (store) => sharedStoreQueue(settings.taskQueue, store) ?? settings.hostQueue, env);
}

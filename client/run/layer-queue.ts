import { sharedStoreQueue, type DexStore } from '../../store/dex-store';
import type { Settings } from '../settings';

/**
 * The queue of a layer run's activities (docs/layers.md#running-targets-at-once): a detached run
 * on a shared store goes to the store's queue, where every worker on that store takes its
 * targets; any other run stays on the host queue of `settings` (this host's, or the command's own).
 */
export function layerActivityQueue(settings: Settings, detach: boolean | undefined, store: Pick<DexStore, 'kind' | 'id'>): string {
  return (detach ? sharedStoreQueue(settings.taskQueue, store) : undefined) ?? settings.hostQueue;
}

import { DependencyCache } from '../../host/dependencies/dependency-cache';
import type { ActivityDeps } from '../deps';

const hostCaches = new Map<string, { cache: DependencyCache; downloads: string }>();

/**
 * The dependency cache and download caches of this host, one per cache folder in a process: setup,
 * verify and the baseline share it, so a spare is made once, not once per set of activities.
 */
export function hostDependencyCache(deps: ActivityDeps): { cache: DependencyCache; downloads: string } {
  let caches = hostCaches.get(deps.dependencyCache);
  if (!caches) {
    caches = { cache: new DependencyCache(deps.dependencyCache), downloads: `${deps.dependencyCache}/.downloads` };
    hostCaches.set(deps.dependencyCache, caches);
  }
  return caches;
}

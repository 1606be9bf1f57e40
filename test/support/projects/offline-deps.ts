import type { ActivityDeps } from '../../../activities';
import type { DexStore } from '../../../store/dex-store';

/** Activity dependencies for tests that make no model call: asking for a client fails the test. */
export function offlineDeps(store: DexStore, dexHome: string): ActivityDeps {
  return {
    store,
    dexHome,
    dependencyCache: `${dexHome}/deps-cache`,
    anthropicClient: () => {
      throw new Error('no model calls in this test');
    },
  };
}

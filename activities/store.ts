import type { ActivityDeps } from './deps';
import type { PhaseRecord } from './sqlite-store';

/** Activities that write the run's records to the store. */
export const createStoreActivities = (deps: ActivityDeps) => ({
  /** Stores a phase's outcome and totals (once per key). */
  async recordPhase(record: PhaseRecord): Promise<void> {
    deps.store.recordPhase(record);
  },
});

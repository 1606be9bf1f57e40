import { afterAll, beforeAll } from 'vitest';
import { alive, down, readBed, up, type BedState } from '../../scripts/cluster/bed';

/** The cluster test bed of one test file. */
export interface BedHook {
  readonly bed: BedState;
  /** Replaces the bed's state (after its server was restarted on other ports or pid). */
  set(state: BedState): void;
}

/**
 * Brings the cluster test bed (scripts/cluster/bed.ts) up before the file and takes it down after,
 * unless it was up already: a developer's `scripts/cluster.sh up` is left as it was, and so is
 * a bed kept with DEX_CLUSTER_KEEP. Register it before the file's other hooks, so its `afterAll`
 * runs last (vitest runs after-hooks as a stack).
 */
export function useBed(): BedHook {
  let bed: BedState | undefined;
  let ownBed = false;
  beforeAll(async () => {
    const before = readBed();
    ownBed = !before || !alive(before.serverPid);
    bed = await up((line) => console.log(line));
  });
  afterAll(async () => {
    if (ownBed && !process.env.DEX_CLUSTER_KEEP) await down();
  });
  return {
    get bed() {
      if (!bed) throw new Error('the cluster test bed is up from beforeAll on');
      return bed;
    },
    set: (state) => {
      bed = state;
    },
  };
}

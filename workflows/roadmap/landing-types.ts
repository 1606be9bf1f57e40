import type { RunControl } from '../run/run-control';
import type { RoadmapActivities } from './activities';
import type { FinalizeContext } from './finalize-child';

/** How landing a task ended: its landing commit, or why it was not landed. */
export type Landing = { landed: true; sha: string } | { landed: false; reason: string };

/** What landing a task needs from its roadmap. */
export interface LandingContext extends FinalizeContext {
  acts: RoadmapActivities;
  control: RunControl;
  /** The `Dex-Merge` trailer's value: a retried landing finds its commit instead of landing twice. */
  key: string;
}

import type { RunControl } from '../run/run-control';
import type { RoadmapActivities } from './activities';
import type { FinalizeContext } from './finalize-child';
import type { CiWake } from './pr/forge';
import type { ReviewInbox } from './pr/review-inbox';

/** How landing a task ended: its landing commit, or why it was not landed. */
export type Landing = { landed: true; sha: string } | { landed: false; reason: string };

/** What landing a task needs from its roadmap. */
export interface LandingContext extends FinalizeContext {
  acts: RoadmapActivities;
  control: RunControl;
  /** The `Dex-Merge` trailer's value: a retried landing finds its commit instead of landing twice. */
  key: string;
  /** `land.mode: pr`: the run's waits for CI, which the `ciChanged` signal wakes. */
  ci?: CiWake;
  /** `land.mode: pr`: the reviews of the landings' pull requests, which the `reviewSubmitted` signal brings. */
  reviews?: ReviewInbox;
  /** Shows a step of the landing in the run's status. */
  step?: (text: string) => void;
  /** Publishes the run's status now (the board changed). */
  publish?: () => void;
}

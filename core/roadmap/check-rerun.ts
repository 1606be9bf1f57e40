/**
 * What a failed check read while a landing waits for CI means (docs/landing-through-prs.md#a-check-that-fails):
 * its first failure, re-run once; the failure that counts (its re-run failed too, or it cannot be
 * re-run); or the run dex asked to re-run, still reported as it was (pending). A re-run is told by
 * its id where the forge makes a new run, and by the forge's own times where it runs the same run
 * again in place; a history recorded before checks carried times tells it by its id alone.
 */
import type { CheckStatus } from './pull-request-types';

/** The failed run of a check as it was when dex asked for its re-run. */
export interface RerunAsked {
  id: string;
  startedAt?: string;
  completedAt?: string;
  /** Seen pending since: a failure of the same run after that is the re-run's. */
  restarted?: boolean;
}

/** `rerun`: a first failure; `failed`: the failure counts; `stale`: the re-run asked for has not reported yet. */
type FailedCheckVerdict = 'rerun' | 'failed' | 'stale';

/** The re-run record of `check`, a failed run dex is about to re-run. */
export const rerunAsked = ({ id, startedAt, completedAt }: CheckStatus): RerunAsked => ({ id, ...(startedAt ? { startedAt } : {}), ...(completedAt ? { completedAt } : {}) });

/** True when the forge's time `now` is after `then` (both the forge's, so no clock skew matters). */
const after = (now: string | undefined, then: string | undefined) => now !== undefined && then !== undefined && Date.parse(now) > Date.parse(then);

/** What a read of `check` (failed) means, `asked` its re-run if dex asked for one. */
export function failedCheckVerdict(check: CheckStatus, asked: RerunAsked | undefined): FailedCheckVerdict {
  if (!asked) return check.rerunnable === false ? 'failed' : 'rerun';
  if (check.id !== asked.id) return 'failed';
  // The same run: without the times (a history recorded before them), it is the failure already re-run.
  if (asked.completedAt === undefined) return 'stale';
  const again = asked.restarted || after(check.completedAt, asked.completedAt) || after(check.startedAt, asked.startedAt);
  return again ? 'failed' : 'stale';
}

/** `asked` after a read that shows its check `state`: pending marks the run restarted. */
export const seenAfterRerun = (asked: RerunAsked, state: CheckStatus['state']): RerunAsked => (state === 'pending' && !asked.restarted ? { ...asked, restarted: true } : asked);

import { condition } from '@temporalio/workflow';
import { failedCheckVerdict, rerunAsked, seenAfterRerun, type RerunAsked } from '../../../core/roadmap/check-rerun';
import type { ChecksReport, CheckStatus, PullRequestLanding, PullRequestRef } from '../../../core/roadmap/pull-request-types';
import type { CiWake, Forge } from './forge';
import { forgeTarget } from './forge';

/** The first wait between two reads of the checks; it doubles up to {@link LAST_POLL_MS}. A `ciChanged` signal cuts any short. */
const FIRST_POLL_MS = 30_000;
const LAST_POLL_MS = 10 * 60_000;
/** How long one wait for CI may last when `land.pr` names none: a day. */
const DEFAULT_CI_TIMEOUT_MINUTES = 1440;

/** How a wait for CI ended: all green (some perhaps only on their one re-run), a check failing again, or the time up. */
type CiEnd = { kind: 'green'; flaky: string[] } | { kind: 'failed'; failed: CheckStatus[] } | { kind: 'timeout'; pending: string[] };

/** What a wait for CI needs from the landing. */
interface CiWaitInput {
  forge: Forge;
  pr: PullRequestLanding;
  ref: PullRequestRef;
  /** The head commit whose checks count. */
  sha: string;
  wake: CiWake;
  /** Shows the checks as read, and what the landing waits for (absent: nothing any more). */
  show(report: ChecksReport, waiting: string | undefined, flaky: string[]): void;
  /** A step worth showing (a re-run). */
  step(text: string): void;
}

/** `build pending, test passed`: the checks waited for, in the forge's order, the missing ones last. */
function checksText(report: ChecksReport): string {
  return [...report.checks.map((c) => `${c.name} ${c.state}`), ...report.missing.map((m) => `${m} pending`)].join(', ') || 'no checks reported yet';
}

/**
 * Waits durably for the checks of `sha` on the pull request (docs/landing-through-prs.md#what-happens-to-a-finished-task):
 * reads them, and while one is pending or not reported yet, waits 30 s, then twice as long each
 * time up to 10 min, or until a `ciChanged` signal names the branch or commit, for at most
 * `ciTimeoutMinutes` in all. A failed check is re-run once; passing then, it is flaky and let
 * through; failing again (told by a new id or, re-run in place, by the forge's times), the wait
 * ends with it, as it does at once for a check dex cannot re-run (a commit status).
 */
export async function waitForCi(w: CiWaitInput): Promise<CiEnd> {
  const target = forgeTarget(w.pr);
  const deadline = Date.now() + (w.pr.ciTimeoutMinutes ?? DEFAULT_CI_TIMEOUT_MINUTES) * 60_000;
  // The failed run of each check re-run once, by name: that run, reported as it was (a moment, or until an app re-runs it in place), counts as pending.
  const rerun = new Map<string, RerunAsked>();
  const watch = w.wake.watch(target, w.ref.head, w.sha);
  let delay = FIRST_POLL_MS;
  let lookedAgain = false;
  try {
    for (;;) {
      // Cleared before the read, not after: a signal that comes while the checks are read wakes the next wait.
      watch.woken = false;
      const report = await w.forge.readChecks({ target, pr: w.ref.number, sha: w.sha, checks: w.pr.checks }, `CI · read the checks of PR #${w.ref.number}`);
      for (const c of report.checks) {
        const asked = rerun.get(c.name);
        if (asked) rerun.set(c.name, seenAfterRerun(asked, c.state));
      }
      const verdict = (c: CheckStatus) => (c.state === 'failed' ? failedCheckVerdict(c, rerun.get(c.name)) : undefined);
      const stale = (c: CheckStatus) => verdict(c) === 'stale';
      const failed = report.checks.filter((c) => c.state === 'failed' && !stale(c));
      // A re-run that failed too, or a check dex cannot re-run (a commit status): the wait ends with it.
      const again = failed.filter((c) => verdict(c) === 'failed');
      const flaky = [...rerun.keys()].filter((name) => report.checks.some((c) => c.name === name && c.state === 'passed'));
      if (again.length) {
        w.show(report, undefined, flaky);
        return { kind: 'failed', failed };
      }
      for (const c of failed) {
        await w.forge.rerunCheck({ target, checkId: c.id }, `CI · re-run ${c.name} on PR #${w.ref.number}`);
        rerun.set(c.name, rerunAsked(c));
        w.step(`PR #${w.ref.number}: ${c.name} failed; re-run once`);
      }
      const pending = [...report.checks.filter((c) => c.state === 'pending' || stale(c) || failed.includes(c)).map((c) => c.name), ...report.missing];
      // Nothing reported and nothing required: a forge may take a moment to start CI on a new head, so look once more before merging.
      const none = !report.checks.length && !report.missing.length;
      if (!pending.length && !(none && !lookedAgain)) {
        w.show(report, undefined, flaky);
        return { kind: 'green', flaky };
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        w.show(report, undefined, flaky);
        return { kind: 'timeout', pending };
      }
      lookedAgain ||= none;
      w.show(report, `waiting for CI on PR #${w.ref.number}: ${checksText(report)}`, flaky);
      if (failed.length) delay = FIRST_POLL_MS; // a re-run starts over: read it soon
      await condition(() => watch.woken, Math.min(delay, left));
      delay = Math.min(delay * 2, LAST_POLL_MS);
    }
  } finally {
    watch.close();
  }
}

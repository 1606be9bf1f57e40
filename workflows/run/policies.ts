import { ActivityCancellationType, type ActivityOptions } from '@temporalio/workflow';

/**
 * Retry and timeout profiles, one per kind of activity. Activities classify their own
 * errors (non-retryable ones fail at once), so these only shape the retryable ones.
 */

/** Model turns: heartbeated every 5 s, so a dead worker's call is retried within 10 s (bench B3); rate limits back off up to a minute. */
export const llmPolicy: ActivityOptions = {
  startToCloseTimeout: '10m',
  heartbeatTimeout: '10s',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '60s', maximumAttempts: 8 },
};

/**
 * Agent tools: a command may run for minutes (it heartbeats every 2 s); a tool error is a result, so retries are for crashes.
 * A cancelled run waits until the command has stopped, so its rollback never races a command still writing.
 */
export const toolPolicy: ActivityOptions = {
  startToCloseTimeout: '20m',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  heartbeatTimeout: '10s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 3 },
};

/** Verify runs test suites: long, heartbeated, a crash mid-run is simply run again, and a cancel waits for the suite to stop. */
export const verifyPolicy: ActivityOptions = {
  startToCloseTimeout: '60m',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  heartbeatTimeout: '15s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 3 },
};

/** git operations are quick and idempotent; a lock file left by a crash clears within seconds. */
export const gitPolicy: ActivityOptions = {
  startToCloseTimeout: '2m',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '15s', maximumAttempts: 6 },
};

/** Reading the worktree and writing the store: local, quick, idempotent. */
export const localIoPolicy: ActivityOptions = {
  startToCloseTimeout: '1m',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 5 },
};

import { ActivityCancellationType, type ActivityOptions } from '@temporalio/workflow';
import { FAILURE } from '../../core/run/failure-types';
import { TARGET_ATTEMPTS } from '../../core/layer/target/target-run';

/**
 * Retry and timeout profiles, one per kind of activity. Activities classify their own
 * errors (non-retryable ones fail at once), so these only shape the retryable ones.
 *
 * Why every dex activity is a regular one on its host's queue, none local (docs/performance.md#where-a-dispatch-waits):
 * - model calls, tools, verify and git heartbeat and may run for minutes: a local activity cannot heartbeat, and a
 *   crash would re-run it from the last workflow task, where a regular one is retried alone;
 * - the short store and worktree steps (fetchContext, recordPhase, keepPhaseArtifact, findRewindPoint) must run on the
 *   host that holds the worktree and store, and a local activity runs on whichever worker holds the workflow task,
 *   any host polling the shared queue; with the dev server's transfer-queue limit raised a regular activity waits
 *   a few ms at most for its poller (the figures are in docs/performance.md), so a local one would save little and give
 *   up that routing.
 */

/**
 * Model turns heartbeat as the reply's bytes arrive (every second while they wait within the stream's limits) and give up a stream
 * silent for 20 s themselves (activities/model/stream-watchdog.ts), so the heartbeat timeout only notices a dead worker: its call is
 * retried within seconds (workers send heartbeats at most 1 s apart, worker/start-worker.ts; docs/performance.md#b3-sigkill-of-the-worker).
 * The server notices a missing heartbeat a moment after the timeout, so the first retry comes sooner than the usual 500 ms;
 * ten attempts still give an API outage over a minute and a half of backoff. Rate limits back off up to a minute.
 */
export const llmPolicy: ActivityOptions = {
  startToCloseTimeout: '10m',
  heartbeatTimeout: '4s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '60s', maximumAttempts: 10 },
};

/**
 * How long a model call goes on answering reading turns before it reports (activities/model/reading-turns.ts):
 * a pause, a person watching the Web UI and `dex status` wait for the call's end, so at most about this long;
 * an activity's own cost (milliseconds of CPU between server and worker: docs/performance.md) is then a tiny part of it.
 */
export const READING_CHAIN_MS = 10_000;

/**
 * A stretch of a Claude Code session (docs/claude-code.md#durable-at-the-message): it may work for an hour; it heartbeats on every
 * message the session emits and every second while the session lives, so a dead worker's session is resumed within seconds, on
 * the same host (its session file is there). Its stored messages and Claude Code's own file make a retry cheap.
 */
export const claudePolicy: ActivityOptions = {
  startToCloseTimeout: '60m',
  heartbeatTimeout: '5s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 5 },
};

/**
 * A layer target run as one activity (docs/layers.md#where-a-target-runs): a model call's heartbeats and retries,
 * with room for every node of the target; a retry goes on from the steps stored, so it costs little.
 */
export const layerTargetPolicy: ActivityOptions = {
  ...llmPolicy,
  startToCloseTimeout: '30m',
  retry: { ...llmPolicy.retry, maximumAttempts: TARGET_ATTEMPTS },
};

/**
 * Agent tools: a command may run for minutes (it heartbeats on output, and every 2 s while its process lives, silent or not:
 * half the heartbeat timeout, so a dead worker's tool is retried within 5 s, its first retry 200 ms after the timeout as for llmPolicy);
 * a tool error is a result, so retries are for crashes.
 * A cancelled run waits until the command has stopped, so its rollback never races a command still writing.
 */
export const toolPolicy: ActivityOptions = {
  startToCloseTimeout: '20m',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  heartbeatTimeout: '4s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 3 },
};

/**
 * The tool calls of one turn as one activity (activities/tools/run-turn-tools.ts): each call keeps a single call's
 * allowance, so the start-to-close grows with their number; heartbeats and retries are a single call's.
 */
export function turnToolsPolicy(calls: number): ActivityOptions {
  return { ...toolPolicy, startToCloseTimeout: `${20 * Math.max(1, calls)}m` };
}

/** Verify runs test suites: long, heartbeated like tools, a crash mid-run is simply run again, and a cancel waits for the suite to stop. */
export const verifyPolicy: ActivityOptions = {
  startToCloseTimeout: '60m',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  heartbeatTimeout: '15s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 3 },
};

/**
 * git operations are idempotent and heartbeat every second while their local git runs, so a crash is noticed in 5 s
 * (not at a start-to-close) while a big `git worktree add` may take minutes; a lock file left by a crash clears within seconds.
 */
export const gitPolicy: ActivityOptions = {
  startToCloseTimeout: '10m',
  heartbeatTimeout: '5s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '15s', maximumAttempts: 6 },
};

/**
 * Reading the worktree and writing the store: local, idempotent, and heartbeated every second by the ones that can
 * take a while (fetchContext walks the worktree), so a crash is noticed in 5 s. Every activity under it heartbeats
 * (activities/run/local-heartbeat.ts); the layers' synchronous store work has its own {@link storePolicy}.
 */
export const localIoPolicy: ActivityOptions = {
  startToCloseTimeout: '1m',
  heartbeatTimeout: '5s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 5 },
};

/**
 * A layer's store reads and writes: a query or two each, on SQLite (synchronous: the event loop cannot heartbeat
 * while it runs) or a shared PostgreSQL store (a lost connection is tried once more after 250 ms,
 * docs/production.md#the-shared-store), so no heartbeat timeout; a short start-to-close bounds what a crash costs.
 */
export const storePolicy: ActivityOptions = {
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 5 },
};

/**
 * The landCommand is the owner's program (it may talk to a forge for a minute): it heartbeats
 * while its process lives; a crash is retried, a failing exit is an outcome (the `merge` gate).
 */
export const landCommandPolicy: ActivityOptions = {
  startToCloseTimeout: '15m',
  heartbeatTimeout: '10s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 3 },
};

/**
 * The forge activities of landing through pull requests (activities/roadmap/landing-forge.ts): a few
 * HTTP requests each, every one bounded at 30 s (host/forge/github-forge.ts), heartbeating every second
 * while they run. A forge down or rate-limiting is retried with backoff for about ten minutes; the token
 * missing or refused, the repository not found, a request refused and a certificate not trusted fail at once (they are raised
 * non-retryable too; listed here so the policy says so). The waiting for CI is the workflow's, not these.
 */
export const forgePolicy: ActivityOptions = {
  startToCloseTimeout: '3m',
  heartbeatTimeout: '10s',
  retry: {
    initialInterval: '2s',
    backoffCoefficient: 2,
    maximumInterval: '2m',
    maximumAttempts: 10,
    nonRetryableErrorTypes: [FAILURE.ForgeAuth, FAILURE.ForgeNotFound, FAILURE.ForgeRequestRefused, FAILURE.ForgeUntrusted],
  },
};

/** A gate answered by a model: a model that keeps failing reaches the gate's fallback (docs/roadmaps.md#ai-gates) in seconds, not minutes. */
export const gatePolicy: ActivityOptions = { ...llmPolicy, retry: { ...llmPolicy.retry, maximumAttempts: 3 } };

/**
 * A fleet task's slot on a worker (activities/run/task-slot.ts), held for the task's whole life and renewed every 2 s:
 * a worker that stops renewing it for 20 s is lost, and the task moves (docs/fleet.md#noticing-a-lost-worker). It waits
 * for a free slot as long as it takes (no schedule-to-start), and is never retried by Temporal: the task asks again itself.
 */
export const leasePolicy: ActivityOptions = {
  startToCloseTimeout: '3650d',
  heartbeatTimeout: '20s',
  cancellationType: ActivityCancellationType.TRY_CANCEL,
  retry: { maximumAttempts: 1 },
};

/**
 * How long a fleet task's activity may wait on its worker's own queue before that worker counts as lost: the backstop
 * for a worker whose slot is still renewed but whose queue nobody polls (docs/fleet.md#noticing-a-lost-worker).
 */
export const PLACED_SCHEDULE_TO_START = '60s';

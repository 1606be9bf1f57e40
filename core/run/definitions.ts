import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { CiChanged } from '../roadmap/pull-request-types';
import type { ReviewSubmitted } from '../forge/review';
import type { ApproveInput, RejectInput, RunState, RunStatus, TokenUsage } from './run-types';
import type { WorkerPlaced } from '../fleet/placement-types';

/** Passes the gate the run waits at (docs/interfaces.md#people-in-the-loop). */
export const approveSignal = defineSignal<[ApproveInput?]>('approve');
/** Fails the gate the run waits at (docs/interfaces.md#people-in-the-loop). */
export const rejectSignal = defineSignal<[RejectInput]>('reject');
/** Stops the run after the current activity. */
export const pauseSignal = defineSignal<[unknown?]>('pause');
/** Lets a paused run go on. */
export const resumeSignal = defineSignal<[unknown?]>('resume');
/** `approve` or `reject` as one validated update: what `dex approve`/`reject` send. */
export type DecideInput = ({ action: 'approve' } & ApproveInput) | ({ action: 'reject' } & RejectInput);

/** Which gate a decision passed (and, in a roadmap, whose). */
export interface DecideResult {
  gate: string;
  taskId?: string;
}

/**
 * Passes or fails the gate the run waits at, like the signals, but answers: refused before it
 * is accepted when nothing waits (or the named task does not exist), else the gate it passed.
 */
export const decideUpdate = defineUpdate<DecideResult, [DecideInput]>('decide');

/** The run's state, what it waits for, where it is and what it has spent. */
export const statusQuery = defineQuery<RunStatus>('status');

/** What a child task has spent so far, in all. */
export interface TaskSpending {
  tokens: TokenUsage;
  costUsd: number;
}

/** What a child task tells its roadmap when its state changes, or when it has spent more (workflows/task/parent-link.ts). */
export interface TaskUpdate extends TaskSpending {
  taskId: string;
  state: RunState;
  waitingFor: RunStatus['waitingFor'];
  phase?: string;
}

/**
 * A step of a Claude Code session, sent by the session's activity as it happens
 * (docs/claude-code.md#durable-at-the-message): the run's status and the Web UI's current details
 * show it at once, as they show dex's own turns.
 */
export const sessionStepSignal = defineSignal<[{ phase: string; step: string }]>('sessionStep');

/** A child task's update to its parent roadmap. */
export const taskUpdateSignal = defineSignal<[TaskUpdate]>('taskUpdate');

/**
 * A task's request to its roadmap: grant it run budget up to `usd` in all
 * (docs/roadmaps.md#budgets-and-runaway-protection), with what it has spent so far (`spent`;
 * absent from tasks of releases before it), so a roadmap that waits for budget shows it.
 */
export const budgetRequestSignal = defineSignal<[{ taskId: string; usd: number; spent?: TaskSpending }]>('budgetRequest');

/** A roadmap's answer to a task's request: its grant in all, or `denied` when a person would not raise the run budget. */
export const budgetGrantSignal = defineSignal<[{ usd: number } | { denied: true }]>('budgetGrant');

/** From a fleet worker's `holdTaskSlot` activity to its task: the slot it took, and the queue the task's activities go to now (docs/fleet.md#where-a-task-runs). */
export const workerPlacedSignal = defineSignal<[WorkerPlaced]>('workerPlaced');

/** From `dex webhook`: CI changed on a branch or commit of a forge repository; a roadmap not waiting on it ignores it (docs/landing-through-prs.md#webhooks). */
export const ciChangedSignal = defineSignal<[CiChanged]>('ciChanged');

/** From `dex webhook`: a person with write access reviewed the pull request of a task's landing (docs/forge-triggers.md#reviews-answered-on-the-same-pr). */
export const reviewSubmittedSignal = defineSignal<[ReviewSubmitted]>('reviewSubmitted');

/**
 * How long a worker may hold a workflow task of a short-history workflow (a task, a layer
 * target) before the server gives it to another worker. A worker SIGKILLed right after it took
 * one would otherwise stall the run for the default 10 s (docs/performance.md#b3-sigkill-of-the-worker).
 * Their workflow tasks take milliseconds; one that overruns is only retried.
 * Roadmaps, layers and sheets keep the default: their histories are longer to replay.
 */
export const SHORT_WORKFLOW_TASK_TIMEOUT = '2s';

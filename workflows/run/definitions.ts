import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { ApproveInput, RejectInput, RunState, RunStatus, TokenUsage } from '../../core/run-types';

/** Passes the gate the run waits at (docs/interfaces.md#people-in-the-loop). */
export const approveSignal = defineSignal<[ApproveInput?]>('approve');
/** Fails the gate the run waits at (docs/interfaces.md#people-in-the-loop). */
export const rejectSignal = defineSignal<[RejectInput]>('reject');
/** Stops the run after the current activity. */
export const pauseSignal = defineSignal<[unknown?]>('pause');
/** Lets a paused run go on. */
export const resumeSignal = defineSignal<[unknown?]>('resume');
/** The run's state, what it waits for, where it is and what it has spent. */
export const statusQuery = defineQuery<RunStatus>('status');

/** What a child task tells its roadmap when its state changes. */
export interface TaskUpdate {
  taskId: string;
  state: RunState;
  waitingFor: RunStatus['waitingFor'];
  phase?: string;
  tokens: TokenUsage;
  costUsd: number;
}

/** A child task's update to its parent roadmap. */
export const taskUpdateSignal = defineSignal<[TaskUpdate]>('taskUpdate');

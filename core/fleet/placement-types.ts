/**
 * Where a task on a forge repository runs in a fleet (docs/fleet.md#where-a-task-runs): every
 * worker polls the fleet's queue for task slots; the worker that takes a task's slot tells the
 * task its own queue, and the task's activities go there while that worker lives. Plain data: it
 * crosses workflow history as JSON.
 */

/** A worker of the fleet, as it names itself to the tasks it takes. */
export interface FleetWorker {
  /** A person's name for it: `host` or `host~home` when one host runs several. */
  name: string;
  /** The queue only this worker polls: the activities that need its disk (worktree, mirror, caches). */
  queue: string;
}

/** The slot a worker took for a task: sent by the worker's `holdTaskSlot` activity to its task (`workerPlaced`). */
export interface WorkerPlaced extends FleetWorker {
  /** Which of the task's asks for a slot this answers: an answer to an older one is ignored. */
  lease: string;
}

/** A task's move from a lost worker to another, as its status shows it. */
export interface WorkerMove {
  from: string;
  to: string;
  /** When the task noticed the loss (workflow time, ISO). */
  at: string;
  /** What was lost: `lease lost` (its worker stopped renewing it) or the activity that could not start there. */
  why: string;
}

/** The queue of a fleet's task slots, beside its workflow queue `dex`: `dex-fleet`. */
export const fleetQueueOf = (taskQueue: string): string => `${taskQueue}-fleet`;

/**
 * The queue every fleet member polls for the work of a roadmap on a forge repository that needs no
 * one worker's disk (docs/fleet.md#a-roadmap-on-a-forge-repository): reading the roadmap, pushing and
 * ticking a landing, the forge's API, each from the worker's own mirror: `dex-fleet-work`.
 */
export const fleetWorkQueueOf = (taskQueue: string): string => `${taskQueue}-fleet-work`;

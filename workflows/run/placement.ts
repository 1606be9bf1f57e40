import { TimeoutType } from '@temporalio/common';
import { ActivityFailure, CancellationScope, condition, isCancellation, proxyActivities, setHandler, TimeoutFailure } from '@temporalio/workflow';
import type { DexActivities } from '../../activities';
import type { FleetWorker, WorkerMove, WorkerPlaced } from '../../core/fleet/placement-types';
import { workerPlacedSignal } from '../../core/run/definitions';
import { leasePolicy } from './policies';
import { summarized } from './summarized';

/**
 * Where a run's host activities go: the one place that decides it (docs/fleet.md#where-a-task-runs).
 * A local checkout's run stays on the queue of the host that holds it; a fleet task's goes to the
 * worker that holds its slot, and moves when that worker is lost.
 */
export interface Placement {
  /** Runs one activity call on the run's worker (`call` gets its queue); on a fleet, a call its worker was lost under runs again on the next. */
  run<T>(call: (queue: string) => Promise<T>): Promise<T>;
  /** True when a schedule-to-start bound guards the calls: a fleet worker's queue may lose its only poller. */
  readonly bounded: boolean;
  /** Gives the slot back: the run has ended. */
  release(): void;
}

/** A run bound to one host's queue, as every run on a local checkout is. */
export const hostPlacement = (queue: string, bounded = false): Placement => ({ run: (call) => call(queue), bounded, release: () => {} });

/** One ask for a slot: answered by the worker that took it, ended when the slot is given back or lost. */
interface Lease {
  id: string;
  scope: CancellationScope;
  answer?: WorkerPlaced;
  ended?: string;
  released?: boolean;
}

/**
 * A fleet task's place: a slot on whichever worker of the fleet's queue takes it first (each takes
 * as many as its `--tasks`), held by a long `holdTaskSlot` activity that the worker renews by
 * heartbeats and that tells the task the worker's own queue. When the slot's heartbeats stop (the
 * worker died, or lost its network), or an activity cannot start on the worker's queue, the
 * worker is lost: the calls on it are cancelled, a slot on another worker is asked for, `restore`
 * remakes the task's worktree there, and the calls run again. History keeps every finished call,
 * so at most the calls in flight are redone.
 */
export class FleetPlacement implements Placement {
  readonly bounded = true;
  /** The worker the task's calls go to now. */
  worker?: FleetWorker;
  readonly moves: WorkerMove[] = [];
  private lease?: Lease;
  private asked = 0;
  /** Why the current worker counts as lost; undefined while it lives. */
  private lost?: string;
  private moving?: Promise<void>;
  /** The calls in flight (and a restore), cancelled when their worker is lost. */
  private readonly running = new Set<CancellationScope>();
  private readonly holdTaskSlot;

  /**
   * @param restore makes the task ready on a new worker before its calls go on there (the worktree
   *   at its last recorded state); it gets the worker's queue, and is cancelled if that worker is lost too.
   * @param changed runs when the task's worker changes, for its status.
   */
  constructor(
    fleetQueue: string,
    private readonly restore: (queue: string) => Promise<void>,
    private readonly changed: () => void = () => {},
  ) {
    const { holdTaskSlot } = proxyActivities<DexActivities>({ ...leasePolicy, taskQueue: fleetQueue });
    this.holdTaskSlot = summarized({ holdTaskSlot }).holdTaskSlot;
    setHandler(workerPlacedSignal, (placed) => {
      if (this.lease?.id === placed.lease && !this.lease.ended) this.lease.answer = placed;
    });
  }

  async run<T>(call: (queue: string) => Promise<T>): Promise<T> {
    for (;;) {
      const worker = await this.placed();
      const scope = new CancellationScope();
      this.running.add(scope);
      try {
        return await scope.run(() => call(worker.queue));
      } catch (err) {
        if (!this.lostUnder(worker, err)) throw err;
      } finally {
        this.running.delete(scope);
      }
    }
  }

  release(): void {
    if (!this.lease) return;
    this.lease.released = true;
    this.lease.scope.cancel();
  }

  /** A live worker for the next call: the current one, or, when there is none or it was lost, the next one, restored. */
  private async placed(): Promise<FleetWorker> {
    while (!this.worker || this.lost) {
      this.moving ??= this.move().finally(() => (this.moving = undefined));
      await this.moving;
    }
    return this.worker;
  }

  /** True when `err` is what losing `worker` did to a call on it; an activity that could not start on its queue loses it now. */
  private lostUnder(worker: FleetWorker, err: unknown): boolean {
    if (worker !== this.worker || this.lost) return isCancellation(err) || err instanceof ActivityFailure;
    const cause = err instanceof ActivityFailure ? err.cause : undefined;
    if (!(cause instanceof TimeoutFailure) || cause.timeoutType !== TimeoutType.SCHEDULE_TO_START) return false;
    this.lose(`${err instanceof ActivityFailure ? err.activityType : 'an activity'} could not start on its queue`);
    return true;
  }

  /** The current worker is lost: its calls stop, and its slot is given back (it is gone, or will be told by its next heartbeat). */
  private lose(why: string): void {
    this.lost = why;
    this.release();
    for (const scope of this.running) scope.cancel();
  }

  /** Takes a slot on a worker (another, when the task had one) and restores the task there. */
  private async move(): Promise<void> {
    for (;;) {
      const from = this.worker;
      const why = this.lost;
      const next = await this.ask();
      if (from) {
        this.moves.push({ from: from.name, to: next.name, at: new Date().toISOString(), why: why ?? 'lease lost' });
        this.worker = next;
        this.lost = undefined;
        this.changed();
        const scope = new CancellationScope();
        this.running.add(scope);
        try {
          await scope.run(() => this.restore(next.queue));
        } catch (err) {
          if (!this.lostUnder(next, err)) throw err;
          continue;
        } finally {
          this.running.delete(scope);
        }
      }
      this.worker = next;
      this.lost = undefined;
      this.changed();
      return;
    }
  }

  /** Asks the fleet's queue for a slot until a worker takes one and says where it is. */
  private async ask(): Promise<WorkerPlaced> {
    for (;;) {
      // Apart from the run's own cancellation: a cancelled task still cleans up on its worker, then gives the slot back.
      const lease: Lease = { id: `slot-${++this.asked}`, scope: new CancellationScope({ cancellable: false }) };
      this.lease = lease;
      const held = lease.scope.run(() => this.holdTaskSlot({ lease: lease.id }, `fleet · hold a task slot (${lease.id})`));
      void held.then(
        () => this.ended(lease, 'its worker gave the slot back'),
        (err: unknown) => this.ended(lease, isCancellation(err) ? 'released' : 'its worker stopped renewing the slot'),
      );
      await condition(() => lease.answer !== undefined || lease.ended !== undefined);
      if (lease.answer) return lease.answer;
    }
  }

  private ended(lease: Lease, why: string): void {
    lease.ended = why;
    if (lease === this.lease && !lease.released && lease.answer) this.lose(why);
  }
}

/**
 * Heartbeats for activities whose work is local to this worker: git children, the worktree's
 * files, the store. While such work runs it is progress (a git that still runs is working, and
 * cannot stall the way a remote stream can), so a steady ticker is honest here; it lets
 * `gitPolicy` and `localIoPolicy` keep a short heartbeat timeout that notices a dead worker
 * within seconds while a big `git worktree add` may take minutes.
 */
import { Context } from '@temporalio/activity';

/** How often a local activity heartbeats while it runs (gitPolicy's and localIoPolicy's heartbeat timeout is 5 s). */
const LOCAL_HEARTBEAT_MS = 1_000;

/** What each running activity's heartbeats carry, as {@link reportProgress} last set it. */
const details = new WeakMap<Context, unknown>();

/** Sets what the running activity's heartbeats carry from now on (shown with its pending activity), and heartbeats it now. */
export function reportProgress(progress: unknown): void {
  const ctx = Context.current();
  details.set(ctx, progress);
  ctx.heartbeat(progress);
}

/** An activity function, as the factories build them. */
type Activity = (...args: never[]) => Promise<unknown>;

/** The same activities, each heartbeating every {@link LOCAL_HEARTBEAT_MS} from its start until it settles. */
export function heartbeatingWhileRunning<T extends Record<string, Activity>>(activities: T): T {
  const wrapped: Record<string, Activity> = {};
  for (const [name, activity] of Object.entries(activities)) {
    wrapped[name] = async (...args) => {
      const ctx = Context.current();
      ctx.heartbeat();
      const ticker = setInterval(() => ctx.heartbeat(details.get(ctx)), LOCAL_HEARTBEAT_MS);
      try {
        return await activity(...args);
      } finally {
        clearInterval(ticker);
      }
    };
  }
  return wrapped as T;
}

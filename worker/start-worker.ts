import Anthropic from '@anthropic-ai/sdk';
import type { DataConverter } from '@temporalio/common';
import { type NativeConnection, Worker } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { dependencyCacheDir } from '../host/cache-dir';
import { openStoreFromEnv } from '../store/open-store';
import { redactingStore } from '../store/redacting-store';
import { secretValues } from '../host/secrets/secret-values';
import { createRedactor } from '../core/safety/redaction';
import { activityTracingOptions } from '../tracing/worker-tracing';
import { createWorkflowWorker } from './workflow-worker';
import { fleetQueueOf, fleetWorkQueueOf } from '../core/fleet/placement-types';
import { DEFAULT_TASK_SLOTS } from './fleet-membership';
import { hostname } from 'node:os';

// The workflow worker lives apart, so a background workflow host loads no activity code (client/server/shared-host.ts).
export { createWorkflowWorker, workflowBundle, WORKFLOW_TASK_SLOTS } from './workflow-worker';
export { DEFAULT_TASK_SLOTS, fleetMembership } from './fleet-membership';

/** Where a worker connects and which queues it serves. */
interface WorkerPlacement {
  connection: NativeConnection;
  namespace: string;
  /** The shared queue that runs workflows (docs/interfaces.md#plans-workflows-and-ids: `dex`). */
  taskQueue: string;
  /** False: this process runs no workflow tasks, a workflow host or another worker does (docs/architecture.md#who-serves-a-run). @default true */
  servesWorkflows?: boolean;
  /** This host's queue, for the activities that touch its worktrees and store. */
  hostQueue: string;
  /** The queue of the foreground runs of whoever has this worker's key (client/run-queues.ts ownerQueue). */
  ownerQueue?: string;
  /** A shared store's queue (store/dex-store.ts sharedStoreQueue), for layer activities any worker on it may run. */
  storeQueue?: string;
  /** The payload codec of every client of this server (docs/production.md#payload-encryption); default: none. */
  dataConverter?: DataConverter;
  /** A fleet member (its `deps.fleet`): how many task slots it takes on the fleet's queue (docs/fleet.md#running-a-fleet). */
  taskSlots?: number;
}

/**
 * The activities' dependencies on this host: the store `env`'s DEX_STORE names (the SQLite file
 * under `dexHome` by default) and a retry-free Anthropic client. The caller closes the store.
 */
export async function hostDeps(dexHome: string, env: NodeJS.ProcessEnv = process.env): Promise<ActivityDeps> {
  // One client per base URL, kept: its connections are reused from one model call to the next.
  const clients = new Map<string, Anthropic>();
  const redactor = createRedactor(secretValues(env));
  return {
    redactor,
    // Everything an activity stores passes the one redaction step (docs/security.md#redaction).
    store: redactingStore(await openStoreFromEnv(dexHome, env), redactor),
    dexHome,
    dependencyCache: dependencyCacheDir(env),
    anthropicClient: ({ baseUrl }) => {
      const url = baseUrl ?? env.ANTHROPIC_BASE_URL ?? '';
      let client = clients.get(url);
      if (!client) {
        client = new Anthropic({
          apiKey: env.ANTHROPIC_API_KEY ?? 'missing-key',
          baseURL: url || undefined,
          // Temporal's retry policy is the only one: a retry inside the SDK would hide from history.
          maxRetries: 0,
          timeout: 5 * 60_000,
        });
        clients.set(url, client);
      }
      return client;
    },
  };
}

/** A host's workers: workflows on the shared queue, activities on this host's queue (and a shared store's). */
export interface DexWorker {
  run(): Promise<void>;
  shutdown(): void;
  /** A fleet member stops taking task slots; the tasks it holds go on (docs/fleet.md#draining-a-worker). */
  stopTakingTasks?(): void;
}

/**
 * Activities a host's worker runs at once (the SDK's default is 100). Most of an activity's time is a
 * wait for the model, and how much work runs at once is already set by the runs (a task runs one
 * activity at a time, a roadmap and a layer their `concurrency`): with 100, a host's 101st run at once
 * waited for a slot, and many runs whose turns each held a slot waited for each other
 * (docs/performance.md#reading-turns-in-one-call). An idle slot costs nothing.
 */
export const ACTIVITY_SLOTS = 1_000;

/** How long a draining fleet worker waits for the tasks it holds to end (docs/fleet.md#draining-a-worker). */
const SLOTS_GRACE = '7d';

/** The longest gap between two heartbeats sent to the server (the SDK's default is up to 60 s). */
const HEARTBEAT_THROTTLE = '1s';

/** Creates the workers for one host. */
export async function createDexWorker(placement: WorkerPlacement, deps: ActivityDeps, overrides: Record<string, (...args: never[]) => Promise<unknown>> = {}): Promise<DexWorker> {
  const { connection, namespace, hostQueue, dataConverter } = placement;
  const workflows = placement.servesWorkflows === false ? [] : [await createWorkflowWorker(placement)];
  // Tests may stand scripted activities in for some (a forge, test/time-skipping/roadmap/landing-pr.time-skipping.test.ts).
  const registered = { ...createActivities(deps), ...overrides };
  // A fleet member serves its own queue and the fleet's shared work (a forge roadmap's landings) besides its host's.
  const fleetQueues = deps.fleet ? [deps.fleet.worker.queue, fleetWorkQueueOf(placement.taskQueue)] : [];
  const activityQueues = [...new Set([hostQueue, placement.ownerQueue, placement.storeQueue, ...fleetQueues].filter((q): q is string => !!q))];
  const activityWorker = (queue: string, activities: Record<string, (...args: never[]) => Promise<unknown>>, slots = ACTIVITY_SLOTS, extra: { shutdownGraceTime?: string; identity?: string } = {}) =>
    Worker.create({
      ...extra,
      connection,
      namespace,
      taskQueue: queue,
      activities,
      // Heartbeats reach the server at most 1 s apart (the SDK's throttle is 0.8 × the heartbeat timeout), so
      // policies.ts can use a 4 s heartbeat timeout and a dead worker's activity is retried within seconds (docs/performance.md#b3-sigkill-of-the-worker).
      maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE,
      defaultHeartbeatThrottleInterval: HEARTBEAT_THROTTLE,
      maxConcurrentActivityTaskExecutions: slots,
      dataConverter,
      ...activityTracingOptions(),
    });
  const activityWorkers = await Promise.all(activityQueues.map((queue) => activityWorker(queue, registered)));
  // A fleet member takes at most `taskSlots` tasks: each holds one of this worker's slots on the fleet's queue while it lives.
  // Its shutdown waits for the slots it holds (a drain finishes its tasks); a worker that stops gives them back first (`leaving`).
  const fleet = deps.fleet;
  const slots = fleet
    ? await activityWorker(fleetQueueOf(placement.taskQueue), { holdTaskSlot: registered.holdTaskSlot }, placement.taskSlots ?? DEFAULT_TASK_SLOTS, {
        shutdownGraceTime: SLOTS_GRACE,
        // `dex workers` names the member; the SDK's `<pid>@<host>` ending tells a live poller of this host from a dead one.
        identity: `${fleet.worker.name} ${process.pid}@${hostname()}`,
      })
    : undefined;
  const group = workerGroup([...workflows, ...activityWorkers, ...(slots ? [slots] : [])]);
  if (!fleet || !slots) return group;
  return {
    ...group,
    shutdown: () => {
      fleet.leaving = true;
      group.shutdown();
    },
    stopTakingTasks: () => {
      if (slots.getState() === 'RUNNING') slots.shutdown();
    },
  };
}

/** Workers run and stopped together. */
export function workerGroup(all: Worker[]): DexWorker {
  return {
    run: async () => {
      await Promise.all(all.map((w) => w.run()));
    },
    shutdown: () => {
      for (const w of all) if (w.getState() === 'RUNNING') w.shutdown();
    },
  };
}

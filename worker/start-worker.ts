import Anthropic from '@anthropic-ai/sdk';
import type { DataConverter } from '@temporalio/common';
import { bundleWorkflowCode, type NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { join } from 'node:path';
import { createActivities, type ActivityDeps } from '../activities';
import { dependencyCacheDir } from '../host/cache-dir';
import { openStoreFromEnv } from '../store/open-store';
import { redactingStore } from '../store/redacting-store';
import { secretValues } from '../host/secrets/secret-values';
import { createRedactor } from '../core/safety/redaction';
import { activityTracingOptions, tracedWorkflowModules, workflowTracingOptions } from '../tracing/worker-tracing';

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
}

const bundles = new Map<string, Promise<WorkflowBundleWithSourceMap>>();

/**
 * The workflow bundle, built once per process (and per set of interceptor modules: tracing's,
 * when on, docs/production.md#traces): bundling checks that workflow code imports nothing forbidden.
 */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  const workflowInterceptorModules = tracedWorkflowModules();
  const key = workflowInterceptorModules.join('\n');
  let bundle = bundles.get(key);
  if (!bundle) {
    bundle = bundleWorkflowCode({ workflowsPath: join(__dirname, '..', 'workflows', 'index.ts'), workflowInterceptorModules, logger: quietBundlerLogger });
    bundles.set(key, bundle);
  }
  return bundle;
}

const quietBundlerLogger = {
  log: () => {},
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};

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
}

/**
 * How long a run's next workflow task waits for the worker that ran it last before any worker
 * may take it (the SDK's default is 10 s). After a crash between two activities the run stands
 * still that long (docs/performance.md). A live worker took its tasks within 0.4 s even with 128
 * runs at once on a 2-core machine, so a task still waiting after 3 s is on a worker that is gone.
 */
const STICKY_QUEUE_TIMEOUT = '3s';

/**
 * Workflow tasks a worker runs at once (the SDK's default is 40). A start call can hand a run's first
 * workflow task to the starting process's worker only while it has a free slot: with 40, 28 of 64 runs
 * started at once got one and the others' first tasks waited up to 0.4 s in the queue; with 100, all 64
 * did (docs/performance.md#first-workflow-tasks). Tasks are short and run one at a time on the workflow
 * thread whatever the number, so slots cost nothing while idle.
 */
export const WORKFLOW_TASK_SLOTS = 100;

/**
 * Activities a host's worker runs at once (the SDK's default is 100). Most of an activity's time is a
 * wait for the model, and how much work runs at once is already set by the runs (a task runs one
 * activity at a time, a roadmap and a layer their `concurrency`): with 100, a host's 101st run at once
 * waited for a slot, and 256 runs whose reading turns each held one call for 2 s took 3.4× their ideal
 * instead of 1.x× (docs/performance.md#reading-turns-in-one-call). An idle slot costs nothing.
 */
export const ACTIVITY_SLOTS = 1_000;

/** The longest gap between two heartbeats sent to the server (the SDK's default is up to 60 s). */
const HEARTBEAT_THROTTLE = '1s';

/** Creates the workers for one host. */
export async function createDexWorker(placement: WorkerPlacement, deps: ActivityDeps): Promise<DexWorker> {
  const { connection, namespace, hostQueue, dataConverter } = placement;
  const workflows = placement.servesWorkflows === false ? [] : [await createWorkflowWorker(placement)];
  const registered = createActivities(deps);
  const activityQueues = [...new Set([hostQueue, placement.ownerQueue, placement.storeQueue].filter((q): q is string => !!q))];
  const activityWorkers = await Promise.all(
    activityQueues.map((queue) =>
      Worker.create({
        connection,
        namespace,
        taskQueue: queue,
        activities: registered,
        // Heartbeats reach the server at most 1 s apart (the SDK's throttle is 0.8 × the heartbeat timeout), so
        // policies.ts can use a 4 s heartbeat timeout and a dead worker's activity is retried within seconds (docs/performance.md#b3-sigkill-of-the-worker).
        maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE,
        defaultHeartbeatThrottleInterval: HEARTBEAT_THROTTLE,
        maxConcurrentActivityTaskExecutions: ACTIVITY_SLOTS,
        dataConverter,
        ...activityTracingOptions(),
      }),
    ),
  );
  return workerGroup([...workflows, ...activityWorkers]);
}

/**
 * A worker for workflow tasks only, on the shared queue: it holds no credentials and runs no
 * activities, so any host may run it for everyone's runs (`dex server`, `dex worker --workflows-only`).
 */
export async function createWorkflowWorker(placement: Pick<WorkerPlacement, 'connection' | 'namespace' | 'taskQueue' | 'dataConverter'> & { identity?: string }): Promise<Worker> {
  return Worker.create({
    connection: placement.connection,
    namespace: placement.namespace,
    taskQueue: placement.taskQueue,
    ...(placement.identity ? { identity: placement.identity } : {}),
    workflowBundle: await workflowBundle(),
    stickyQueueScheduleToStartTimeout: STICKY_QUEUE_TIMEOUT,
    maxConcurrentWorkflowTaskExecutions: WORKFLOW_TASK_SLOTS,
    dataConverter: placement.dataConverter,
    ...workflowTracingOptions(),
  });
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

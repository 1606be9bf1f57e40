import type { DataConverter } from '@temporalio/common';
import { type NativeConnection, Worker, type WorkflowBundle } from '@temporalio/worker';
import { tracedWorkflowModules, workflowTracingOptions } from '../tracing/worker-tracing';
import { bundleCodeBuiltOnce, cachedBundleCode } from './workflow-bundle-file';

const bundles = new Map<string, Promise<WorkflowBundle>>();

/**
 * The workflow bundle (with tracing's interceptor modules, when on, docs/production.md#traces),
 * loaded once per process from the file built once per code version in dex's cache
 * (worker/workflow-bundle-file.ts): bundling checks that workflow code imports nothing forbidden.
 */
export function workflowBundle(): Promise<WorkflowBundle> {
  const key = tracedWorkflowModules().join('\n');
  let bundle = bundles.get(key);
  if (!bundle) {
    bundle = bundleCodeBuiltOnce().then((code) => ({ code }));
    bundles.set(key, bundle);
  }
  return bundle;
}

/**
 * How long a run's next workflow task waits for the worker that ran it last before any worker
 * may take it (the SDK's default is 10 s). After a crash between two activities the run stands
 * still that long. A live worker takes its tasks well within that even with many runs at once on
 * 2 cores (docs/performance.md), so a task still waiting after 3 s is on a worker that is gone.
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

/** Where a workflow worker connects and which queue it serves. */
interface WorkflowPlacement {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  dataConverter?: DataConverter;
}

/**
 * A worker for workflow tasks only, on the shared queue: it holds no credentials and runs no
 * activities, so any host may run it for everyone's runs (`dex server`, `dex worker --workflows-only`).
 * `shared`: one of several in a background host (client/server/shared-host.ts), which runs its
 * workflows on the main thread: a worker thread of its own loads the bundle again, ~60 MB a
 * queue, where a context on the main thread takes ~14 MB (docs/performance.md#background-workflow-hosts).
 * The cost is the SDK's deadlock detector, which needs the thread; dex's workflow code is its own.
 */
export async function createWorkflowWorker(
  placement: WorkflowPlacement & { identity?: string; shared?: boolean },
): Promise<Worker> {
  return Worker.create({
    connection: placement.connection,
    namespace: placement.namespace,
    taskQueue: placement.taskQueue,
    ...(placement.identity ? { identity: placement.identity } : {}),
    workflowBundle: placement.shared ? { code: cachedBundleCode() } : await workflowBundle(),
    stickyQueueScheduleToStartTimeout: STICKY_QUEUE_TIMEOUT,
    maxConcurrentWorkflowTaskExecutions: WORKFLOW_TASK_SLOTS,
    dataConverter: placement.dataConverter,
    ...(placement.shared ? { debugMode: true } : {}),
    ...workflowTracingOptions(),
  });
}


import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker, type NativeConnectionOptions, type WorkerOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteDexStore } from '../store/sqlite/sqlite-dex-store';
import { ensureTemporalCli } from '../client/toolchain/toolchain';
import { DEV_SERVER_DYNAMIC_CONFIG, devServerEnv } from '../client/server/dev-server';
import { quietRuntime } from '../test/support/env/dev-server-env';
import { createBenchActivities } from './bench-activities';
import { registerSearchAttributes } from '../client/server/search-attribute-setup';
import { workerConnectionOptions } from '../client/server/worker-connection-options';
import { ACTIVITY_SLOTS, WORKFLOW_TASK_SLOTS } from '../worker/start-worker';
import { freePort } from '../host/local-ports';

/** A dev server for one benchmark run, and the pid of its process (for its CPU time). */
export interface BenchServer {
  env: TestWorkflowEnvironment;
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * Starts the pinned Temporal CLI dev server (in memory, as the tests use it) as a child of
 * this process: its banner must not reach stdout, which carries the --json result, and its
 * pid gives the server's CPU time.
 */
export async function startBenchServer(opts: { dynamicConfig?: string[]; defaults?: boolean; args?: string[] } = {}): Promise<BenchServer> {
  quietRuntime();
  const port = await freePort();
  // The same dynamic config as `dex server` unless an experiment asks for the bare defaults (bench/probes/probe-dispatch.ts).
  const dc = [...(opts.defaults === false ? [] : DEV_SERVER_DYNAMIC_CONFIG), ...(opts.dynamicConfig ?? [])];
  const child = spawn(
    ensureTemporalCli(),
    ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--headless', '--log-level', 'error', ...dc.flatMap((kv) => ['--dynamic-config-value', kv]), ...(opts.args ?? [])],
    // `dex server`'s environment too, unless an experiment asks for the bare defaults.
    { stdio: 'ignore', env: opts.defaults === false ? process.env : devServerEnv() },
  );
  const address = `127.0.0.1:${port}`;
  // The worker connection as dex makes it (client/server/worker-connection-options.ts).
  const dexWorkerConnection = { name: 'dex-worker-connection', configureNativeConnection: (o: NativeConnectionOptions) => ({ ...o, ...workerConnectionOptions(address) }) };
  let env: TestWorkflowEnvironment | undefined;
  for (let attempt = 0; !env; attempt++) {
    try {
      env = await TestWorkflowEnvironment.createFromExistingServer({ address, plugins: [dexWorkerConnection] });
      await env.client.workflowService.getSystemInfo({});
    } catch (err) {
      env = undefined;
      if (attempt > 300 || child.exitCode !== null) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const ready = env;
  // dex's workflows upsert dex's search attributes: the namespace must know them, as on any cluster.
  await registerSearchAttributes(ready.connection, 'default');
  return {
    env: ready,
    pid: child.pid,
    stop: async () => {
      await ready.teardown();
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** The bench workflows, bundled once per process on their own (they are not part of dex's bundle). */
export function benchBundle(): Promise<WorkflowBundleWithSourceMap> {
  const silent = () => {};
  bundle ??= bundleWorkflowCode({
    workflowsPath: join(__dirname, 'workflows', 'pipeline-workflow.ts'),
    logger: { log: silent, trace: silent, debug: silent, info: silent, warn: silent, error: (m: string) => console.error(m) },
  });
  return bundle;
}

/** A running bench worker. */
export interface BenchWorker {
  worker: Worker;
  stop(): Promise<void>;
}

/** A worker for the bench workflows and the fake model step on `taskQueue`. */
export async function startBenchWorker(
  env: TestWorkflowEnvironment,
  taskQueue: string,
  opts: { onStart?: (step: number) => void; options?: Partial<WorkerOptions> } = {},
): Promise<BenchWorker> {
  // Where chained steps keep their answers, as a dex worker keeps its model replies.
  const storeDir = mkdtempSync(join(tmpdir(), 'dex-bench-store-'));
  const store = openSqliteDexStore(join(storeDir, 'dex.db'));
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: 'default',
    taskQueue,
    workflowBundle: await benchBundle(),
    activities: createBenchActivities({ onStart: opts.onStart, store }),
    // As dex's own workers (worker/start-worker.ts).
    maxConcurrentWorkflowTaskExecutions: WORKFLOW_TASK_SLOTS,
    maxConcurrentActivityTaskExecutions: ACTIVITY_SLOTS,
    ...opts.options,
  });
  const running = worker.run();
  return {
    worker,
    stop: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await store.close();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

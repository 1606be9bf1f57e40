/**
 * The Java time-skipping test server with a dex worker on it (docs/testing-your-flows.md): what
 * `dex replay-test` runs a recording on by default and what `dex/testing` gives a user's own test
 * runner. The worker runs every activity for real (git, the sandbox, the store) in a DEX_HOME of its
 * own; the model is whatever the run's `--llm` says (a cassette, in tests).
 */
import { Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ActivityDeps } from '../../activities';
import { createDexWorker, hostDeps } from '../../worker/start-worker';
import { registerSearchAttributes } from '../server/search-attribute-setup';
import { startTimeSkippingEnvironment } from './test-server-start';

/** The queue a host's workflows run on unless told otherwise. */
export const TEST_TASK_QUEUE = 'dex-test';

/** The activity queue of the host whose workflows run on `taskQueue` (a run's input names it). */
export const testHostQueue = (taskQueue: string): string => `${taskQueue}@test-host`;

/** A time-skipping server and the worker that serves it, until `stop()`. */
export interface TimeSkippingHost {
  env: TestWorkflowEnvironment;
  /** A client whose calls never unlock time skipping: the driver (scripted-run.ts) alone decides when time jumps. */
  client: Client;
  taskQueue: string;
  hostQueue: string;
  /** Where the worker keeps its store and worktrees (a fresh temporary folder unless given). */
  dexHome: string;
  deps: ActivityDeps;
  /** The server's clock, in ms since the epoch (simulated: it jumps when time skips). */
  now(): Promise<number>;
  /** Lets the server skip time while nothing runs (`true`) or holds it to the wall clock (`false`). */
  skipTime(on: boolean): Promise<void>;
  /** With time held, moves the clock on to `atMs` (the server's time) at once, timers due by then firing, and holds it again. */
  skipTo(atMs: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The SDK's runtime with its core's logs at ERROR too: the test server advertises fewer
 * capabilities than a real one, and the core's warning about it would land on stdout.
 */
function quietRuntime(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } }, shutdownSignals: [] });
  } catch {
    // The runtime is installed already (a test runner's own, or an earlier host's): that one serves.
  }
}

/** What the host is made of; every field has a default. */
interface TimeSkippingHostOptions {
  /** @default a fresh temporary folder */
  dexHome?: string;
  /** The environment the worker's activities read (the model key and endpoint, DEX_STORE); @default process.env */
  env?: NodeJS.ProcessEnv;
  /** @default TEST_TASK_QUEUE */
  taskQueue?: string;
  /** Activities that stand in for dex's own of the same names (a recorded forge, replayed-forge.ts), made with the worker's deps. */
  activities?: (deps: ActivityDeps) => object;
}

/**
 * Starts the time-skipping test server (installed from Maven Central once, `dex setup`), registers
 * dex's search attributes on it and starts a worker for every workflow and activity. Time is held
 * to the wall clock until `skipTime(true)`.
 */
export async function startTimeSkippingHost(opts: TimeSkippingHostOptions = {}): Promise<TimeSkippingHost> {
  quietRuntime();
  const env = await startTimeSkippingEnvironment();
  const dexHome = opts.dexHome ?? mkdtempSync(join(tmpdir(), 'dex-test-home-'));
  const taskQueue = opts.taskQueue ?? TEST_TASK_QUEUE;
  const hostQueue = testHostQueue(taskQueue);
  let deps: ActivityDeps | undefined;
  try {
    // The test server takes no search attributes on its command line; dex's runs upsert them.
    await registerSearchAttributes(env.connection, 'default');
    deps = await hostDeps(dexHome, opts.env ?? process.env);
    const overrides = (opts.activities?.(deps) ?? {}) as Record<string, (...args: never[]) => Promise<unknown>>;
    const worker = await createDexWorker({ connection: env.nativeConnection, namespace: 'default', taskQueue, hostQueue }, deps, overrides);
    const running = worker.run();
    const testService = env.connection.testService;
    if (!testService) throw new Error('the time-skipping server answers no test service');
    let skipping = false;
    const store = deps.store;
    return {
      env,
      client: new Client({ connection: env.connection, namespace: 'default' }),
      taskQueue,
      hostQueue,
      dexHome,
      deps,
      now: () => env.currentTimeMs(),
      skipTime: async (on) => {
        if (on === skipping) return;
        skipping = on;
        await (on ? testService.unlockTimeSkipping({}) : testService.lockTimeSkipping({}));
      },
      skipTo: async (atMs) => {
        const ms = atMs - (await env.currentTimeMs());
        if (skipping || ms <= 0) return;
        await testService.unlockTimeSkippingWithSleep({ duration: msToTs(ms) });
      },
      stop: async () => {
        worker.shutdown();
        await running;
        await store.close();
        await env.teardown();
      },
    };
  } catch (err) {
    await deps?.store.close();
    await env.teardown();
    throw err;
  }
}

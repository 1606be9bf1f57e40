/**
 * Real `dex worker` child processes for the crash tests: started as a user would start one,
 * killed with SIGKILL as a crash would, and counted afterwards by the model calls they made.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { FakeAnthropic, RecordedRequest } from '../model/fake-anthropic-server';

/** Where a worker process connects, what it serves, and the fake Messages API it calls. */
export interface DexWorkerOptions {
  address: string;
  dexHome: string;
  taskQueue: string;
  hostQueue: string;
  anthropicUrl: string;
  /** More of its environment (e.g. DEX_STORE). */
  env?: NodeJS.ProcessEnv;
  /** More of its command line (e.g. `--tasks 1`). */
  args?: string[];
}

// Every worker this test file started, so that none outlives it.
const spawned: ChildProcess[] = [];

/** Starts a real `dex worker` process, as a user would start it. */
export function spawnDexWorker(opts: DexWorkerOptions): ChildProcess {
  const child = spawn(process.execPath, [join(__dirname, '..', '..', '..', 'bin', 'dex.js'), 'worker', ...(opts.args ?? [])], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: opts.address,
      DEX_HOME: opts.dexHome,
      DEX_TASK_QUEUE: opts.taskQueue,
      DEX_HOST_QUEUE: opts.hostQueue,
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: opts.anthropicUrl,
      ...opts.env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  spawned.push(child);
  return child;
}

/** Kills `worker` with SIGKILL, as a crash would, and waits until it has exited. */
export async function crashWorker(worker: ChildProcess): Promise<void> {
  worker.kill('SIGKILL');
  await once(worker, 'exit');
}

/**
 * Starts a worker and the run (`start`), kills the worker with SIGKILL once the model call `call`
 * was asked (the fake never answers that request), starts another, and returns the run's result.
 */
export async function resultThroughCrashInCall(fake: FakeAnthropic, call: string, startWorker: () => ChildProcess, start: () => Promise<{ result(): Promise<unknown> }>): Promise<unknown> {
  fake.injectFault({ kind: 'timeout', match: { call } });
  const first = startWorker();
  const handle = await start();
  await expect.poll(() => fake.requests.some((r) => r.headers['x-dex-call'] === call), { timeout: 60_000, interval: 100 }).toBe(true);
  await crashWorker(first);
  startWorker();
  return handle.result();
}

/** Kills every worker started by `spawnDexWorker` that still runs (for `afterAll`). */
export function killDexWorkers(): void {
  for (const w of spawned) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
}

/** How many requests the fake received for each `x-dex-call` key. */
export function requestsPerCall(requests: readonly RecordedRequest[]): Map<string, number> {
  const perCall = new Map<string, number>();
  for (const r of requests) {
    const call = String(r.headers['x-dex-call']);
    perCall.set(call, (perCall.get(call) ?? 0) + 1);
  }
  return perCall;
}

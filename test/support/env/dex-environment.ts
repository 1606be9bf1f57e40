/**
 * The one harness for test files that run workflows on a real Temporal server (modelled on
 * sdk-typescript's helpers-integration.ts): one server, one fake Anthropic server and one
 * in-process worker per file, set up in `beforeAll` and torn down in reverse in `afterAll`.
 *
 *     const dex = useDexEnvironment({ server: 'dev', cassette: CASSETTE, queue: 'dex-it-task' });
 *     it('…', async () => {
 *       const { handle } = await dex.startTask('T-approve');
 *       await waitForGate(handle, 'blocked');
 *     });
 *
 * The histories test/workflows/replay.test.ts replays are written here too: a test names a run with
 * `dex.recordHistory(id, file)`, and `DEX_RECORD_HISTORIES=1 npx vitest run test/<file>` writes
 * its history to test/histories/<file> before tear-down.
 */
import { WorkflowFailedError, type Client, type WorkflowHandle, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { ApplicationFailure, type PayloadCodec } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect } from 'vitest';
import { ensureTemporalCli } from '../../../client/toolchain/toolchain';
import type { CassetteLine } from '../../../core/parsing/cassette';
import type { RunStatus } from '../../../core/run/run-types';
import type { TaskInput } from '../../../core/task/task-types';
import { sampleRepo, startDevServer, startTestWorker, startTimeSkippingServer, taskInput, type TestWorker } from './dev-server-env';
import { startFakeAnthropic, type FakeAnthropic, type RecordedRequest } from '../model/fake-anthropic-server';

const execFileAsync = promisify(execFile);

/** Parsed cassette lines, or the path of a cassette file. */
type Cassette = CassetteLine[] | string;

/** What a test file's environment runs. */
export interface DexEnvironmentOptions {
  /** The Temporal CLI's dev server, or the Java time-skipping test server (`env.sleep` skips time). */
  server: 'dev' | 'time-skipping';
  /**
   * What the fake Anthropic server answers; omitted, no fake is started. A function is called once
   * the server is up, for cassettes that name it (its address).
   */
  cassette?: Cassette | ((env: TestWorkflowEnvironment) => Cassette);
  /**
   * The task queue of this file's in-process worker (its host queue is `<queue>@test-host`);
   * omitted, no worker is started (the CLI and crash tests start their own).
   */
  queue?: string;
  /** The worker's DEX_HOME (default: a fresh temporary directory). */
  dexHome?: string;
  /** Activities that stand in for dex's own of the same name (a scripted forge); default: none. */
  activities?: Record<string, (...args: never[]) => Promise<unknown>>;
  /** A payload codec for the server's client and the worker (docs/production.md#payload-encryption); default: none. */
  codec?: PayloadCodec;
}

/** A test file's environment; each part is there from `beforeAll` to `afterAll`. */
export interface DexEnvironment {
  readonly env: TestWorkflowEnvironment;
  /** The server's client (on the time-skipping server, it skips time while it waits for a result). */
  readonly client: Client;
  readonly fake: FakeAnthropic;
  readonly worker: TestWorker;
  /** Starts `workflowType` as `workflowId` on the worker's queue. */
  start(workflowType: string, workflowId: string, input: unknown): Promise<WorkflowHandleWithFirstExecutionRunId>;
  /** Starts `taskWorkflow` as `task-math-<taskId>-1` on a fresh copy of the sample repository. */
  startTask(taskId: string, overrides?: Partial<TaskInput>): Promise<{ repo: string; handle: WorkflowHandleWithFirstExecutionRunId }>;
  /** The requests the fake received for `task` (its `x-dex-task` header), in order. */
  requestsFor(task: string): RecordedRequest[];
  /** Runs the stock Temporal CLI against this file's server; resolves with its stdout. */
  temporal(...args: string[]): Promise<string>;
  /**
   * Keeps the history of run `workflowId` (its latest run, or run `runId` of its chain) as
   * test/histories/`file` when DEX_RECORD_HISTORIES is set.
   */
  recordHistory(workflowId: string, file: string, runId?: string): void;
  /**
   * The environment of a `dex` command against this server: a DEX_HOME of its own, no model key,
   * and queues no other test polls (`workerQueues`: this file's worker's, so it serves the run).
   */
  cliEnv(opts?: { workerQueues?: boolean }): NodeJS.ProcessEnv;
}

/** Registers this file's `beforeAll` (server, fake, worker) and `afterAll` (the same, in reverse). */
export function useDexEnvironment(opts: DexEnvironmentOptions): DexEnvironment {
  let env: TestWorkflowEnvironment | undefined;
  let fake: FakeAnthropic | undefined;
  let worker: TestWorker | undefined;
  /** The runs to record, by the file each goes to. */
  const recorded = new Map<string, { workflowId: string; runId?: string }>();
  let cliQueues = 0;

  beforeAll(async () => {
    const dataConverter = opts.codec ? { payloadCodecs: [opts.codec] } : undefined;
    env = opts.server === 'dev' ? await startDevServer(dataConverter) : await startTimeSkippingServer();
    if (opts.cassette !== undefined) {
      const cassette = typeof opts.cassette === 'function' ? opts.cassette(env) : opts.cassette;
      fake = await startFakeAnthropic({ cassette });
    }
    if (opts.queue !== undefined) {
      worker = await startTestWorker(env, { anthropicUrl: fake?.url, queue: opts.queue, dexHome: opts.dexHome, dataConverter, activities: opts.activities });
    }
  });

  afterAll(async () => {
    // Set-up in reverse; every step runs, even after one failed.
    const steps = [
      async () => {
        if (process.env.DEX_RECORD_HISTORIES) await writeHistories();
      },
      async () => worker?.stop(),
      async () => fake?.close(),
      async () => env?.teardown(),
    ];
    const failures: unknown[] = [];
    for (const step of steps) await step().catch((err: unknown) => failures.push(err));
    if (failures.length > 0) throw failures[0];
  });

  /** A part of the environment, once `beforeAll` has made it; `option` is what makes it. */
  const part = <T>(value: T | undefined, name: string, option?: string): T => {
    if (value !== undefined) return value;
    if (env && option) throw new Error(`this file's environment has no ${name}: pass \`${option}\` to useDexEnvironment`);
    throw new Error(`dex.${name} is there from beforeAll on: use it in a test or a hook`);
  };

  const temporal = async (...args: string[]): Promise<string> => {
    const { address } = part(env, 'env');
    const { stdout } = await execFileAsync(ensureTemporalCli(), [...args, '--address', address, '--namespace', 'default'], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  };

  async function writeHistories(): Promise<void> {
    for (const [file, { workflowId, runId }] of recorded) {
      const run = runId ? ['--run-id', runId] : [];
      writeFileSync(join(__dirname, '..', '..', 'histories', file), await temporal('workflow', 'show', '--workflow-id', workflowId, ...run, '-o', 'json'));
    }
  }

  const dex: DexEnvironment = {
    get env() {
      return part(env, 'env');
    },
    get client() {
      return part(env, 'env').client;
    },
    get fake() {
      return part(fake, 'fake', 'cassette');
    },
    get worker() {
      return part(worker, 'worker', 'queue');
    },
    start: (workflowType, workflowId, input) =>
      dex.client.workflow.start(workflowType, { workflowId, taskQueue: dex.worker.taskQueue, args: [input] }),
    startTask: async (taskId, overrides = {}) => {
      const repo = sampleRepo();
      const handle = await dex.start('taskWorkflow', `task-math-${taskId}-1`, taskInput(taskId, repo, dex.worker.hostQueue, overrides));
      return { repo, handle };
    },
    requestsFor: (task) => dex.fake.requestsFor(task),
    temporal,
    recordHistory: (workflowId, file, runId) => void recorded.set(file, { workflowId, runId }),
    cliEnv: ({ workerQueues } = {}) => {
      const queue = workerQueues ? part(worker, 'worker', 'queue').taskQueue : `dex-cli-${++cliQueues}`;
      const home = mkdtempSync(join(tmpdir(), 'dex-cli-home-'));
      return {
        TEMPORAL_ADDRESS: part(env, 'env', 'server').address,
        DEX_HOME: home,
        // The command's own dependency cache, not the user's (~/.cache/dex/deps).
        DEX_DEPS_CACHE: join(home, 'deps-cache'),
        DEX_TASK_QUEUE: queue,
        DEX_HOST_QUEUE: workerQueues ? part(worker, 'worker', 'queue').hostQueue : `${queue}@host`,
        ANTHROPIC_API_KEY: '',
      };
    },
  };
  return dex;
}

/** Run states after which nothing waits any more. */
const ENDED = new Set<string>(['completed', 'failed', 'rejected', 'cancelled', 'rolled_back']);

/** Thrown by `waitForGate` when the run ended instead of waiting; `status` is how it ended. */
export class RunEndedError extends Error {
  constructor(readonly status: Pick<RunStatus, 'state' | 'error'>) {
    super(`the run ended ${status.state} before it waited at a gate${status.error ? `: ${status.error}` : ''}`);
    this.name = 'RunEndedError';
  }
}

/** Which gate to wait for: its name, or the fields `waitingFor` must have. */
export type GateMatch = string | Partial<NonNullable<RunStatus['waitingFor']>>;

/**
 * Polls the run's `status` query until it waits at a gate (at `match`, when given) and returns
 * that status; throws `RunEndedError` if the run ends first, and an error after `timeoutMs`.
 */
export async function waitForGate<S extends Pick<RunStatus, 'state' | 'waitingFor' | 'error'> = RunStatus>(
  handle: WorkflowHandle,
  match?: GateMatch,
  { timeoutMs = 60_000 }: { timeoutMs?: number } = {},
): Promise<S> {
  const wanted = typeof match === 'string' ? { gate: match } : (match ?? {});
  const deadline = Date.now() + timeoutMs;
  let last: S | Error | undefined;
  for (;;) {
    try {
      const status = await handle.query<S>('status');
      last = status;
      const waiting = status.waitingFor as Record<string, unknown> | null;
      if (waiting && Object.entries(wanted).every(([key, value]) => waiting[key] === value)) return status;
      if (ENDED.has(status.state)) throw new RunEndedError(status);
    } catch (err) {
      if (err instanceof RunEndedError) throw err;
      last = err as Error; // not answering yet (its first workflow task has not run); ask again
    }
    if (Date.now() > deadline) {
      const seen = last instanceof Error ? `the query failed: ${last.message}` : `last status: ${JSON.stringify(last)}`;
      throw new Error(`${handle.workflowId} did not wait at gate ${JSON.stringify(wanted)} within ${timeoutMs} ms; ${seen}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The ApplicationFailure run `handle` failed with (the test fails if the run did not fail so). */
export async function failureOf(handle: WorkflowHandle): Promise<ApplicationFailure> {
  const err = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return cause as ApplicationFailure;
}

import type { DataConverter } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDexWorker, hostDeps } from '../../../worker/start-worker';
import { ensureTemporalCli } from '../../../client/toolchain/toolchain';
import { startedAgainWhenSlow, startTimeSkippingEnvironment } from '../../../client/testing/test-server-start';
import { createSampleRepo } from '../../../client/demo/sample-repo';
import type { TaskInput } from '../../../core/task/task-types';
import type { ActivityDeps } from '../../../activities';
import { DEX_SEARCH_ATTRIBUTES } from '../../../core/run/search-attributes';
import { registerSearchAttributes } from '../../../client/server/search-attribute-setup';
import { dynamicConfigArgs } from '../../../client/server/dev-server';

let runtimeInstalled = false;

/** A logger that drops everything (for the SDK's bundler and worker-thread client in tests). */
export const silentLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** Bundles the workflows of `test/fixtures/<file>` (a test's own workflows, never dex's). */
export function bundleFixture(file: string): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath: join(__dirname, '..', '..', 'fixtures', file), logger: silentLogger });
}

/** Keeps the SDK's expected warnings (failed workflows, retried activities, replays that must fail) out of test output. */
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });
  runtimeInstalled = true;
}

/** A real Temporal dev server (the pinned Temporal CLI), one per test file. */
export async function startDevServer(dataConverter?: DataConverter): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  return startedAgainWhenSlow(() =>
    TestWorkflowEnvironment.createLocal({
      client: { dataConverter },
      server: {
        executable: { type: 'existing-path', path: ensureTemporalCli() },
        ip: '127.0.0.1',
        searchAttributes: [...DEX_SEARCH_ATTRIBUTES],
        // The dynamic config of `dex server` (client/server/dev-server.ts), so tests see the dispatch latency users do.
        extraArgs: dynamicConfigArgs(),
      },
    }),
  );
}

/** The real Java time-skipping test server, one per test file. */
export async function startTimeSkippingServer(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  const env = await startTimeSkippingEnvironment();
  // The test server takes no search attributes on its command line; dex's own are registered as on a cluster.
  await registerSearchAttributes(env.connection, 'default');
  return env;
}

/** A running test worker and where it works. */
export interface TestWorker {
  deps: ActivityDeps;
  taskQueue: string;
  hostQueue: string;
  dexHome: string;
  stop(): Promise<void>;
}

/** A worker on fresh queues, whose Anthropic client talks to `anthropicUrl`. */
export async function startTestWorker(
  env: TestWorkflowEnvironment,
  opts: { anthropicUrl?: string; queue: string; dexHome?: string; dataConverter?: DataConverter; store?: string; activities?: Record<string, (...args: never[]) => Promise<unknown>> },
): Promise<TestWorker> {
  const dexHome = opts.dexHome ?? mkdtempSync(join(tmpdir(), 'dex-home-'));
  // A dependency cache of the worker's own: what a test sees installed or cached is its own doing.
  const deps = await hostDeps(dexHome, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: opts.anthropicUrl, DEX_STORE: opts.store, DEX_DEPS_CACHE: join(dexHome, 'deps-cache') });
  const taskQueue = opts.queue;
  const hostQueue = `${opts.queue}@test-host`;
  const placement = { connection: env.nativeConnection, namespace: 'default', taskQueue, hostQueue, dataConverter: opts.dataConverter };
  const worker = await createDexWorker(placement, deps, opts.activities);
  const running = worker.run();
  return {
    deps,
    taskQueue,
    hostQueue,
    dexHome,
    stop: async () => {
      worker.shutdown();
      await running;
      await deps.store.close();
    },
  };
}

/** A fresh copy of the sample repository (a `sum` that subtracts, and its failing test). */
export function sampleRepo(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'dex-repo-')), 'math');
  createSampleRepo(dir);
  return dir;
}

/** The sample repository with `agent: claude-code` committed in its dex.config.yaml (docs/claude-code.md). */
export function claudeCodeSampleRepo(): string {
  const repo = sampleRepo();
  appendFileSync(join(repo, 'dex.config.yaml'), '\nagent: claude-code\n');
  execFileSync('git', ['commit', '-qam', 'Claude Code works the phases'], { cwd: repo });
  return repo;
}

/** A task input for the sample repository; verify runs its tests. */
export function taskInput(taskId: string, repoPath: string, hostQueue: string, overrides: Partial<TaskInput> = {}): TaskInput {
  return {
    taskId,
    title: `Fix sum (${taskId})`,
    description: 'test/math.test.js fails: sum(2, 3) should be 5.',
    repoPath,
    hostQueue,
    llm: { kind: 'anthropic' },
    models: { default: 'claude-sonnet-4-6' },
    maxTokens: 1024,
    verify: ['node --test'],
    maxIterations: 8,
    maxRetries: 0,
    gates: {},
    toolLimits: { commandTimeoutMs: 30_000, outputLimitBytes: 8_192 },
    ...overrides,
  };
}

/** The commits on `branch` that are not on `main`, newest first. */
export function commitsOnBranch(repo: string, branch: string): string[] {
  return execFileSync('git', ['log', '--format=%H %s', `main..${branch}`], { cwd: repo, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
}

/** A file's content at a commit. */
export function fileAt(repo: string, rev: string, path: string): string {
  return execFileSync('git', ['show', `${rev}:${path}`], { cwd: repo, encoding: 'utf8' });
}

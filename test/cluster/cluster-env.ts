/**
 * The cluster suite's harness (`npm run test:cluster`): the cluster test bed (scripts/cluster/bed.ts:
 * PostgreSQL + the real Temporal server), the fake Anthropic server and an in-process dex worker,
 * for one file. The bed is brought up once and taken down at the end unless it was up already
 * (a developer's `scripts/cluster.sh up` is left as it was).
 */
import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { buildRoadmapInput } from '../../client/requests/roadmap-request';
import { pollerCount } from '../../client/run/run-handles';
import { readSettings } from '../../client/settings';
import type { CassetteLine } from '../../core/parsing/cassette';
import type { TaskInput } from '../../core/task/task-types';
import { crashAndRestartServer, restartDatabase, type BedState } from '../../scripts/cluster/bed';
import { quietRuntime, sampleRepo, startTestWorker, taskInput, type TestWorker } from '../support/env/dev-server-env';
import { startFakeAnthropic, type FakeAnthropic } from '../support/model/fake-anthropic-server';
import { useBed } from './bed-hook';
import { createTestDatabase, type TestDatabase } from './test-database';

export interface ClusterEnv {
  readonly bed: BedState;
  readonly env: TestWorkflowEnvironment;
  readonly fake: FakeAnthropic;
  readonly worker: TestWorker;
  startTask(taskId: string, overrides?: Partial<TaskInput>): Promise<{ repo: string; handle: WorkflowHandleWithFirstExecutionRunId }>;
  startRoadmap(repo: string): Promise<WorkflowHandleWithFirstExecutionRunId>;
  /** SIGKILL the Temporal server and start it again on the same database. */
  crashServer(): Promise<void>;
  /** pg_ctl restart -m fast. */
  restartPostgres(): void;
  /** Resolves once the fake has answered `count` requests for `task`. */
  waitForRequests(task: string, count: number, timeoutMs?: number): Promise<void>;
}

/**
 * The bed, the fake answering `cassette`, and an in-process worker on `queue` (none when no queue
 * is given) whose store is a fresh PostgreSQL database on the bed, so a database restart hits
 * dex's store as well as Temporal's (docs/production.md#the-shared-store).
 */
export function useClusterEnv(opts: { cassette: CassetteLine[]; queue?: string; latencyMs?: number }): ClusterEnv {
  const hook = useBed();
  let database: TestDatabase | undefined;
  let env: TestWorkflowEnvironment | undefined;
  let fake: FakeAnthropic | undefined;
  let worker: TestWorker | undefined;

  beforeAll(async () => {
    quietRuntime();
    fake = await startFakeAnthropic({ cassette: opts.cassette, latencyMs: opts.latencyMs });
    env = await TestWorkflowEnvironment.createFromExistingServer({ address: hook.bed.address, namespace: 'default' });
    if (opts.queue !== undefined) {
      database = await createTestDatabase(hook.bed, 'dex_cluster');
      worker = await startTestWorker(env, { anthropicUrl: fake.url, queue: opts.queue, store: database.url });
    }
  });

  afterAll(async () => {
    const steps = [async () => worker?.stop(), async () => database?.drop(), async () => fake?.close(), async () => env?.teardown()];
    const failures: unknown[] = [];
    for (const step of steps) await step().catch((err: unknown) => failures.push(err));
    if (failures.length > 0) throw failures[0];
  });

  const need = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the cluster environment is there from beforeAll on');
    return value;
  };

  const cluster: ClusterEnv = {
    get bed() {
      return hook.bed;
    },
    get env() {
      return need(env);
    },
    get fake() {
      return need(fake);
    },
    get worker() {
      return need(worker);
    },
    startTask: async (taskId, overrides = {}) => {
      const repo = sampleRepo();
      const w = cluster.worker;
      const handle = await cluster.env.client.workflow.start('taskWorkflow', {
        workflowId: `task-math-${taskId}-1`,
        taskQueue: w.taskQueue,
        args: [taskInput(taskId, repo, w.hostQueue, overrides)],
      });
      return { repo, handle };
    },
    startRoadmap: async (repo) => {
      const w = cluster.worker;
      const settings = { ...readSettings({}), hostQueue: w.hostQueue, taskQueue: w.taskQueue };
      const checked = buildRoadmapInput({ roadmap: join(repo, 'ROADMAP.md'), llm: 'anthropic' }, settings, { ANTHROPIC_API_KEY: 'test-key' });
      return cluster.env.client.workflow.start('roadmapWorkflow', { workflowId: checked.workflowId, taskQueue: w.taskQueue, args: [checked.input] });
    },
    crashServer: async () => {
      hook.set(await crashAndRestartServer(cluster.bed));
    },
    restartPostgres: () => restartDatabase(cluster.bed),
    waitForRequests: async (task, count, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs;
      while (cluster.fake.requests.filter((r) => r.headers['x-dex-task'] === task).length < count) {
        if (Date.now() > deadline) throw new Error(`the fake saw fewer than ${count} requests for ${task} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
  return cluster;
}

/** Resolves once `count` workers poll `queue` for activities. */
export async function waitForPollers(client: Client, queue: string, count: number, timeoutMs = 60_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ; await new Promise((r) => setTimeout(r, 200))) {
    const polling = await pollerCount(client, 'default', queue, 'activity');
    if (polling >= count) return;
    if (Date.now() > deadline) throw new Error(`${polling} of ${count} workers poll ${queue} after ${timeoutMs / 1000} s`);
  }
}

/** The Dex-Checkpoint keys of every commit in the repository (all refs), one per checkpoint commit. */
export function checkpointKeys(repo: string): string[] {
  const out = execFileSync('git', ['log', '--all', '--format=%(trailers:key=Dex-Checkpoint,valueonly,separator=%x2C)'], { cwd: repo, encoding: 'utf8' });
  return out.split('\n').map((l) => l.trim()).filter(Boolean);
}

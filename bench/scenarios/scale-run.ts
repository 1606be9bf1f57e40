import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { temporal } from '@temporalio/proto';
import Database from 'better-sqlite3';
import { buildLayerInput } from '../../client/requests/layer-request';
import { readSettings } from '../../client/settings';
import type { LayerRunRecord } from '../../core/layer/layer-types';
import { SHORT_WORKFLOW_TASK_TIMEOUT } from '../../core/run/definitions';
import { hostDeps } from '../../worker/start-worker';
import { startFakeAnthropic, type FakeAnthropic } from '../../test/support/model/fake-anthropic-server';
import { insightLine, messagesFor, REFLECT_TEMPLATE } from '../../test/support/plans/layer-fixtures';
import type { BenchServer } from '../dex-env';
import { cpuSeconds, round, until } from '../stats';

/** One layer run of the scale section. */
export interface ScaleRun {
  /** `activity`: each target one activity of the run (today's default); `workflows`: each in a child workflow (`target_workflows: true`, how every layer ran before). */
  targets: 'activity' | 'workflows';
  topics: number;
  concurrency: number;
  latencyMs: number;
  seconds: number;
  topicsPerSecond: number;
  /** Wall time over the concurrency-bound ideal (topics / concurrency × the model's latency). */
  vsIdeal: number;
  /** CPU per topic: the Temporal server's, its database's (on the cluster test bed), the `dex worker` processes', and all. */
  cpuMsPerTopic: { server: number; database?: number; worker: number; total: number };
  /** The runs of the layer's chain (continue-as-new), the longest history among them, and a target child's, if any. */
  histories: { runs: number; longest: number; child?: number };
  /** Topics with exactly one insight from this run, and insights stored in all. */
  topicsWithOneInsight: number;
  insights: number;
  modelRequests: number;
  crash?: ScaleCrash;
}

/** A worker SIGKILLed mid-layer, and a new one started. */
export interface ScaleCrash {
  /** Model requests the fake had received when the worker died. */
  atRequest: number;
  /** Calls asked again after the crash: each was in flight when the worker died (at most `concurrency`). */
  askedAgain: number;
  /** Calls whose answer was stored before the crash and were asked again: must be 0. */
  storedAskedAgain: number;
  /** SIGKILL → the replacement worker's first model request. */
  resumeSeconds: number;
}

type Event = temporal.api.history.v1.IHistoryEvent;

/** The layer file: each topic's one message, its prior insights, one model call, the insight stored. */
function layerFile(dir: string, topics: number, concurrency: number, targets: ScaleRun['targets']): string {
  mkdirSync(join(dir, 'prompts'));
  writeFileSync(join(dir, 'prompts', 'reflect.md'), REFLECT_TEMPLATE);
  const file = join(dir, 'scale.layer.yaml');
  writeFileSync(
    file,
    `name: scale
targets: { select: { lookback_hours: 48, min_messages: 1, limit: ${topics} } }
concurrency: ${concurrency}
${targets === 'workflows' ? 'target_workflows: true' : ''}
nodes:
  - { name: fetch, type: fetch_messages, params: { lookback_hours: 48, limit_per_channel: 50 } }
  - { name: prior, type: fetch_insights, params: { max_per_topic: 3 } }
  - { name: reflect, type: llm_call, params: { prompt_template: prompts/reflect.md, max_tokens: 400 } }
  - { name: store, type: store_insight, params: { category: reflection, parse: strict } }
`,
  );
  return file;
}

/** A `dex worker` process serving `queue` and `hostQueue` with its store in `dexHome`, as a host runs it. */
function startWorker(server: BenchServer, dexHome: string, queue: string, hostQueue: string, fake: FakeAnthropic): ChildProcess {
  return spawn(process.execPath, [join(__dirname, '..', '..', 'bin', 'dex.js'), 'worker'], {
    env: { ...process.env, TEMPORAL_ADDRESS: server.env.address, DEX_HOME: dexHome, DEX_TASK_QUEUE: queue, DEX_HOST_QUEUE: hostQueue, ANTHROPIC_API_KEY: 'bench-key', ANTHROPIC_BASE_URL: fake.url },
    stdio: 'ignore',
  });
}

/** Waits until some worker polls each of `queues`. */
async function polled(server: BenchServer, queues: string[]): Promise<void> {
  const service = server.env.client.workflowService;
  for (const name of queues) {
    await until(async () => {
      const workflows = await service.describeTaskQueue({ namespace: 'default', taskQueue: { name }, taskQueueType: 1 });
      const activities = await service.describeTaskQueue({ namespace: 'default', taskQueue: { name }, taskQueueType: 2 });
      return (workflows.pollers?.length ?? 0) + (activities.pollers?.length ?? 0) > 0;
    }, 200);
  }
}

/** Every run of the chain under `workflowId`, first to last, as history lengths; and the first target child's length, if any. */
async function historyLengths(server: BenchServer, workflowId: string, firstRunId: string): Promise<ScaleRun['histories']> {
  const lengths: number[] = [];
  let child: number | undefined;
  for (let runId: string | undefined = firstRunId; runId; ) {
    const history = await server.env.client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events: Event[] = history.events ?? [];
    lengths.push(events.length);
    const childId = events.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)?.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
    if (childId && child === undefined) child = ((await server.env.client.workflow.getHandle(childId).fetchHistory()).events ?? []).length;
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return { runs: lengths.length, longest: Math.max(...lengths), ...(child !== undefined ? { child } : {}) };
}

/** Call keys of the model answers stored in `dbPath` (read while no worker writes). */
function storedCalls(dbPath: string): Set<string> {
  const db = new Database(dbPath, { readonly: true });
  try {
    return new Set((db.prepare('SELECT call_key FROM model_calls').all() as { call_key: string }[]).map((r) => r.call_key));
  } finally {
    db.close();
  }
}

/** Insights per topic of run `runId`. */
function insightCounts(dbPath: string, runId: string): { topicsWithOne: number; insights: number } {
  const db = new Database(dbPath, { readonly: true });
  try {
    const rows = db.prepare('SELECT count(*) n FROM insights WHERE layer_run_id = ? GROUP BY topic').all(runId) as { n: number }[];
    return { topicsWithOne: rows.filter((r) => r.n === 1).length, insights: rows.reduce((sum, r) => sum + r.n, 0) };
  } finally {
    db.close();
  }
}

/**
 * Runs a layer over `topics` topics (one message each) on `server` with one `dex worker` process and a model
 * that answers in `latencyMs`; with `crashAt`, SIGKILLs the worker once the model has had that many requests.
 */
export async function scaleRun(
  server: BenchServer,
  opts: { targets: ScaleRun['targets']; topics: number; concurrency: number; latencyMs: number; crashAt?: number; n: number; databaseCpu?: () => number },
  log: (line: string) => void,
): Promise<ScaleRun> {
  const { topics, concurrency, latencyMs } = opts;
  const dexHome = mkdtempSync(join(tmpdir(), 'dex-bench-scale-'));
  const names = Array.from({ length: topics }, (_, i) => `topic-${i}`);
  const deps = await hostDeps(dexHome, { DEX_DEPS_CACHE: join(dexHome, 'deps-cache') });
  await deps.store.layers.importMessages(messagesFor(names, 1));
  await deps.store.close();
  const fake = await startFakeAnthropic({ latencyMs, answer: (task, phase) => insightLine(task, phase).response });
  const queue = `bench-scale-${opts.n}`;
  const hostQueue = `${queue}@host`;
  const workers = [startWorker(server, dexHome, queue, hostQueue, fake)];
  try {
    await polled(server, [queue, hostQueue]);
    const input = buildLayerInput(layerFile(dexHome, topics, concurrency, opts.targets), { llm: 'anthropic' }, { ...readSettings({}), hostQueue }, { ANTHROPIC_API_KEY: 'bench-key' });
    const workerCpu = () => workers.reduce((sum, w) => sum + (w.exitCode === null && w.signalCode === null ? cpuSeconds(w.pid!) : 0), 0);
    let deadWorkersCpu = 0;
    const server0 = cpuSeconds(server.pid!);
    const database0 = opts.databaseCpu?.() ?? 0;
    const worker0 = workerCpu();
    const started = Date.now();
    const workflowId = `scale-${opts.targets}-${opts.n}`;
    const handle = await server.env.client.workflow.start('layerWorkflow', { workflowId, taskQueue: queue, workflowTaskTimeout: SHORT_WORKFLOW_TASK_TIMEOUT, args: [input] });
    const progress = setInterval(() => log(`scale ${opts.targets} ${topics}: ${fake.requests.length} model requests after ${Math.round((Date.now() - started) / 1000)} s`), 30_000);
    let crash: ScaleCrash | undefined;
    try {
      if (opts.crashAt !== undefined) {
        await until(() => fake.requests.length >= opts.crashAt!, 20);
        const [first] = workers;
        deadWorkersCpu += cpuSeconds(first.pid!);
        first.kill('SIGKILL');
        await once(first, 'exit');
        const killedAt = Date.now();
        const atRequest = fake.requests.length;
        const stored = storedCalls(join(dexHome, 'dex.db'));
        workers.push(startWorker(server, dexHome, queue, hostQueue, fake));
        // The fake records a request once it has waited its latency: one that came after the kill is the new worker's.
        const cameAfterKill = () => fake.requests.find((r) => r.time - latencyMs > killedAt);
        await until(() => cameAfterKill() !== undefined, 20);
        const resumeSeconds = (cameAfterKill()!.time - latencyMs - killedAt) / 1000;
        await handle.result();
        const perCall = new Map<string, number>();
        for (const r of fake.requests) perCall.set(String(r.headers['x-dex-call']), (perCall.get(String(r.headers['x-dex-call'])) ?? 0) + 1);
        const again = [...perCall].filter(([, count]) => count > 1).map(([call]) => call);
        crash = { atRequest, askedAgain: again.length, storedAskedAgain: again.filter((call) => stored.has(call)).length, resumeSeconds: round(resumeSeconds, 1) };
      }
      const record = (await handle.result()) as LayerRunRecord;
      if (record.targetsFailed > 0) throw new Error(`scale run ${workflowId}: ${record.targetsFailed} targets failed: ${JSON.stringify(record.errors.slice(0, 3))}`);
    } finally {
      clearInterval(progress);
    }
    const seconds = (Date.now() - started) / 1000;
    const cpu = { server: cpuSeconds(server.pid!) - server0, database: (opts.databaseCpu?.() ?? 0) - database0, worker: workerCpu() + deadWorkersCpu - worker0 };
    const insights = insightCounts(join(dexHome, 'dex.db'), workflowId);
    const perTopic = (s: number) => round((1000 * s) / topics, 1);
    const run: ScaleRun = {
      targets: opts.targets,
      topics,
      concurrency,
      latencyMs,
      seconds: round(seconds, 1),
      topicsPerSecond: round(topics / seconds, 1),
      vsIdeal: round(seconds / ((topics / concurrency) * (latencyMs / 1000)), 2),
      cpuMsPerTopic: {
        server: perTopic(cpu.server),
        ...(opts.databaseCpu ? { database: perTopic(cpu.database) } : {}),
        worker: perTopic(cpu.worker),
        total: perTopic(cpu.server + cpu.database + cpu.worker),
      },
      histories: await historyLengths(server, workflowId, handle.firstExecutionRunId),
      topicsWithOneInsight: insights.topicsWithOne,
      insights: insights.insights,
      modelRequests: fake.requests.length,
      ...(crash ? { crash } : {}),
    };
    log(
      `scale ${opts.targets} ${topics} topics: ${run.seconds} s, ${run.topicsPerSecond}/s (${run.vsIdeal}× ideal), CPU ${run.cpuMsPerTopic.total} ms/topic ` +
        `(server ${run.cpuMsPerTopic.server}${opts.databaseCpu ? `, database ${run.cpuMsPerTopic.database}` : ''}, worker ${run.cpuMsPerTopic.worker}); ${run.histories.runs} runs, longest history ${run.histories.longest}` +
        `${crash ? `; crash at request ${crash.atRequest}: ${crash.askedAgain} asked again, ${crash.storedAskedAgain} of them stored before` : ''}`,
    );
    return run;
  } finally {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGTERM');
    await Promise.all(workers.map((w) => (w.exitCode === null && w.signalCode === null ? once(w, 'exit') : undefined)));
    await fake.close();
  }
}

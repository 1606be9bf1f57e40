import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { modelCallKey, numberedWorkflowId, phaseAttemptKey, taskWorkflowIdPrefix } from '../../core/run/ids';
import type { TaskResult } from '../../core/task/task-types';
import type { RunStatus } from '../../core/run/run-types';
import { commitsOnBranch, sampleRepo, taskInput } from '../../test/support/env/dev-server-env';
import { startFakeAnthropic, type FakeAnthropic } from '../../test/support/model/fake-anthropic-server';
import { eventTimeMs, type HistoryEvent } from '../history-gaps';
import { SHORT_WORKFLOW_TASK_TIMEOUT } from '../../core/run/definitions';
import { llmPolicy, localIoPolicy, gitPolicy, toolPolicy } from '../../workflows/run/policies';
import type { BenchServer } from '../dex-env';
import type { BenchParams } from '../params';
import { round, until } from '../stats';
import { activitiesRedone, taskCassette } from '../task-runs';

/** One crash: what was redone or duplicated, and how long the run stood still. */
export interface B3Scenario {
  scenario: 'mid-activity' | 'between-activities';
  state: string;
  activitiesRedone: { activity: string; attempts: number }[];
  commitsOnBranch: number;
  modelRequests: number;
  /** Model calls requested more than once (a call cut off by the crash, or one answered and asked again). */
  modelCallsRepeated: number;
  storedRows: Record<string, { rows: number; distinctKeys: number }>;
  /** SIGKILL → the first activity the replacement worker starts. */
  resumeSeconds: number;
  /** SIGKILL → the task's result. */
  finishSeconds: number;
}

/** B3: SIGKILL of a real `dex worker` process during a task, and a replacement worker. */
export interface B3Result {
  scenarios: B3Scenario[];
  timeouts: Record<string, { heartbeatTimeout?: string; startToCloseTimeout?: string }>;
  note: string;
}

const TURNS = 4;

/** Seconds since the epoch of a history event's time. */
const eventSeconds = (t: HistoryEvent['eventTime']) => eventTimeMs(t) / 1000;

/** Runs one crash scenario on the shared dev server. */
async function crashOnce(server: BenchServer, scenario: B3Scenario['scenario'], n: number): Promise<B3Scenario> {
  const taskId = `B3-${n}`;
  const workflowId = numberedWorkflowId(taskWorkflowIdPrefix('math', taskId), 1);
  const queue = `bench-b3-${n}`;
  const hostQueue = `${queue}@host`;
  const dexHome = mkdtempSync(join(tmpdir(), 'dex-bench-b3-'));
  const fake: FakeAnthropic = await startFakeAnthropic({ cassette: taskCassette(taskId, TURNS) });
  const workers: ChildProcess[] = [];
  const startWorker = () => {
    const child = spawn(process.execPath, [join(__dirname, '..', '..', 'bin', 'dex.js'), 'worker'], {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: server.env.address,
        DEX_HOME: dexHome,
        DEX_TASK_QUEUE: queue,
        DEX_HOST_QUEUE: hostQueue,
        ANTHROPIC_API_KEY: 'bench-key',
        ANTHROPIC_BASE_URL: fake.url,
      },
      stdio: 'ignore',
    });
    workers.push(child);
    return child;
  };
  try {
    // Mid-activity: the third model call hangs until the worker dies.
    const hanging = modelCallKey(phaseAttemptKey(workflowId, 'implement', 1), 5);
    if (scenario === 'mid-activity') fake.injectFault({ kind: 'timeout', match: { call: hanging } });
    const first = startWorker();
    const repo = sampleRepo();
    const handle = await server.env.client.workflow.start('taskWorkflow', {
      workflowId,
      taskQueue: queue,
      // As `dex task` starts it (client/run/run-handles.ts).
      workflowTaskTimeout: SHORT_WORKFLOW_TASK_TIMEOUT,
      // Between activities: the run waits at a gate before its phase, so no activity runs when the worker dies.
      args: [taskInput(taskId, repo, hostQueue, scenario === 'between-activities' ? { gates: { beforePhase: {} } } : {})],
    });
    if (scenario === 'mid-activity') {
      await until(() => fake.requests.some((r) => r.headers['x-dex-call'] === hanging));
    } else {
      // Killing right after an activity completed raced the next one's start (eager dispatch takes
      // a few ms), so B3 sometimes measured a second mid-activity crash; a gate holds the run still.
      await until(async () => (await handle.query<RunStatus>('status').catch(() => undefined))?.waitingFor != null);
    }
    first.kill('SIGKILL');
    const killedAt = Date.now() / 1000;
    await once(first, 'exit');
    // Approved at once: the next workflow task is queued for the dead worker.
    if (scenario === 'between-activities') await handle.signal('approve', { note: 'bench', by: 'bench' });
    startWorker();
    const result = (await handle.result()) as TaskResult;
    const finishSeconds = Date.now() / 1000 - killedAt;

    const history = await handle.fetchHistory();
    const restarted = (history.events ?? []).find((e) => e.activityTaskStartedEventAttributes && eventSeconds(e.eventTime) > killedAt);
    const perCall = new Map<string, number>();
    for (const r of fake.requests) perCall.set(String(r.headers['x-dex-call']), (perCall.get(String(r.headers['x-dex-call'])) ?? 0) + 1);
    return {
      scenario,
      state: result.state,
      activitiesRedone: activitiesRedone(history),
      commitsOnBranch: commitsOnBranch(repo, result.branch).length,
      modelRequests: fake.requests.length,
      modelCallsRepeated: [...perCall.values()].filter((count) => count > 1).length,
      storedRows: storedRows(join(dexHome, 'dex.db'), workflowId),
      resumeSeconds: restarted ? round(eventSeconds(restarted.eventTime) - killedAt, 1) : -1,
      finishSeconds: round(finishSeconds, 1),
    };
  } finally {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await fake.close();
  }
}

/** Rows against distinct idempotency keys in the tables a retried activity could write twice. */
function storedRows(dbPath: string, workflowId: string): B3Scenario['storedRows'] {
  const db = new Database(dbPath, { readonly: true });
  try {
    const like = `${workflowId}/%`;
    const count = (sql: string) => (db.prepare(sql).get(like) as { n: number }).n;
    return {
      model_calls: {
        rows: count('SELECT count(*) n FROM model_calls WHERE call_key LIKE ?'),
        distinctKeys: count('SELECT count(DISTINCT call_key) n FROM model_calls WHERE call_key LIKE ?'),
      },
      tool_results: {
        rows: count('SELECT count(*) n FROM tool_results WHERE transcript_id LIKE ?'),
        distinctKeys: count("SELECT count(DISTINCT transcript_id || '#' || tool_use_id) n FROM tool_results WHERE transcript_id LIKE ?"),
      },
      messages: {
        rows: count('SELECT count(*) n FROM messages WHERE transcript_id LIKE ?'),
        distinctKeys: count("SELECT count(DISTINCT transcript_id || '#' || seq) n FROM messages WHERE transcript_id LIKE ?"),
      },
    };
  } finally {
    db.close();
  }
}

/** Runs B3's scenarios one after the other. */
export async function runB3(server: BenchServer, params: BenchParams, log: (line: string) => void): Promise<B3Result> {
  const scenarios: B3Scenario[] = [];
  for (const [i, scenario] of params.b3.scenarios.entries()) {
    const s = await crashOnce(server, scenario, i + 1);
    scenarios.push(s);
    log(
      `b3 ${scenario}: ${s.state}, redone ${JSON.stringify(s.activitiesRedone)}, ${s.commitsOnBranch} commit(s), ` +
        `${s.modelCallsRepeated} model call(s) requested again, resumed after ${s.resumeSeconds} s, finished after ${s.finishSeconds} s`,
    );
  }
  const pick = (p: typeof llmPolicy) => ({ heartbeatTimeout: p.heartbeatTimeout as string | undefined, startToCloseTimeout: p.startToCloseTimeout as string | undefined });
  return {
    scenarios,
    timeouts: { llmPolicy: pick(llmPolicy), toolPolicy: pick(toolPolicy), gitPolicy: pick(gitPolicy), localIoPolicy: pick(localIoPolicy) },
    note: 'a dead worker is noticed through the heartbeat timeout of its running activity (startToClose where there is none); between activities (the run at a gate, approved right after the kill) the next workflow task waits out the dead worker\'s sticky queue (the worker option stickyQueueScheduleToStartTimeout: 3 s in dex, 10 s by default)',
  };
}

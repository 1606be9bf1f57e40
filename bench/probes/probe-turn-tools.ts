/**
 * `npx tsx bench/probes/probe-turn-tools.ts [--m 16] [--turns 6] [--latency 200] [--reading]`: M real taskWorkflows at once,
 * each of `turns` model turns that ask for three tools at once (read_file, list_files, write_file), or with
 * `--reading` every other turn for the two reads alone, against the fake Anthropic API answering after `latency` ms; prints wall time, the server's and the worker's CPU per turn and
 * the activities per turn. A side experiment for docs/performance.md#tool-calls-of-one-turn, run beside the
 * code before the change (a checkout of it) to compare.
 */
import { temporal } from '@temporalio/proto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { numberedWorkflowId, taskWorkflowIdPrefix } from '../../core/run/ids';
import type { TaskResult } from '../../core/task/task-types';
import type { CassetteLine } from '../../core/parsing/cassette';
import { completionTurn, toolTurn } from '../../test/support/model/cassette-builder';
import { sampleRepo, startTestWorker, taskInput } from '../../test/support/env/dev-server-env';
import { startFakeAnthropic } from '../../test/support/model/fake-anthropic-server';
import { startBenchServer } from '../dex-env';
import { exitWith } from './probe-env';
import { cpuSeconds, round, timed } from '../stats';

const { EventType } = temporal.api.enums.v1;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** A task whose every turn asks for three tools at once (with `reading`, every other turn reads only): the fix first, then a note per turn, then completion. */
function threeToolTask(task: string, turns: number, reading: boolean): CassetteLine[] {
  const read: [string, Record<string, unknown>] = ['read_file', { path: 'src/math.js' }];
  const list: [string, Record<string, unknown>] = ['list_files', { path: '.' }];
  const lines = [toolTurn(task, read, list, ['edit_file', { path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a + b;' }])];
  for (let turn = 2; turn < turns; turn++) {
    lines.push(reading && turn % 2 === 0 ? toolTurn(task, read, list) : toolTurn(task, read, list, ['write_file', { path: `notes/turn-${turn}.md`, content: `Turn ${turn}.\n` }]));
  }
  lines.push(completionTurn(task, { status: 'complete', summary: 'sum adds' }));
  return lines;
}

async function main(): Promise<void> {
  const m = arg('m', 16);
  const turns = arg('turns', 6);
  const latencyMs = arg('latency', 200);
  const reading = process.argv.includes('--reading');
  const server = await startBenchServer();
  const batch = async (label: string) => {
    const ids = Array.from({ length: m }, (_, i) => `P-${label}-${i}`);
    const fake = await startFakeAnthropic({ cassette: ids.flatMap((id) => threeToolTask(id, turns, reading)), latencyMs });
    const worker = await startTestWorker(server.env, { queue: `probe-${label}`, anthropicUrl: fake.url, dexHome: mkdtempSync(join(tmpdir(), 'dex-probe-turn-')) });
    try {
      const s0 = cpuSeconds(server.pid!);
      const w0 = cpuSeconds(process.pid);
      const { ms, value } = await timed(() =>
        Promise.all(
          ids.map((id) => {
            const input = taskInput(id, sampleRepo(), worker.hostQueue, { verify: [], maxIterations: turns + 5 });
            const workflowId = numberedWorkflowId(taskWorkflowIdPrefix('math', id), 1);
            return server.env.client.workflow.execute('taskWorkflow', { workflowId, taskQueue: worker.taskQueue, args: [input] }).then(async (r) => {
              const history = await server.env.client.workflow.getHandle(workflowId).fetchHistory();
              const activities = (history.events ?? []).filter((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED).length;
              return { result: r as TaskResult, activities, events: history.events?.length ?? 0 };
            });
          }),
        ),
      );
      const bad = value.find((v) => v.result.state !== 'completed' || v.result.turns !== turns);
      if (bad) throw new Error(`a task ended ${bad.result.state} after ${bad.result.turns} turns`);
      const all = m * turns;
      return {
        label,
        wallMs: Math.round(ms),
        serverCpuMsPerTurn: round((1000 * (cpuSeconds(server.pid!) - s0)) / all, 1),
        workerCpuMsPerTurn: round((1000 * (cpuSeconds(process.pid) - w0)) / all, 1),
        activitiesPerTask: value[0].activities,
        eventsPerTask: value[0].events,
      };
    } finally {
      await worker.stop();
      await fake.close();
    }
  };
  try {
    console.error(JSON.stringify(await batch('warm-up')));
    const rows = [await batch('a'), await batch('b'), await batch('c')];
    for (const row of rows) console.error(JSON.stringify(row));
    console.log(JSON.stringify({ m, turns, latencyMs, reading, rows }));
  } finally {
    await server.stop();
  }
}

exitWith(main);

import type { BenchDoc } from './bench-doc';

const f = (x: number, digits = 1) => (x >= 100 ? Math.round(x).toString() : x.toFixed(digits));

/**
 * The dispatch experiment of issue 16 (`npx tsx bench/probes/probe-dispatch.ts --dc KEY=VALUE ...`): the bench's 20-step pipeline,
 * regular activities, latency 0, median of 8 runs, each on a fresh dev server with only the given dynamic config. Measured
 * once by hand (it needs a dev server per row), so these numbers are kept here rather than in the bench's JSON.
 */
const PROBES: [string, number, number, number][] = [
  ['none (the CLI\'s defaults)', 102.2, 43.6, 40.6],
  ['`matching.numTaskqueueReadPartitions=1`, `…WritePartitions=1`', 102.1, 45.4, 43.2],
  ['`history.transferProcessorMaxPollInterval="10ms"`', 102.1, 44.9, 41.0],
  ['`matching.longPollExpirationInterval="5s"`', 102.0, 45.5, 42.3],
  ['none, TCP quick-ack on the loopback route (`ip route … quickack 1`)', 102.2, 44.8, 41.3],
  ['`system.enableActivityEagerExecution=true`', 51.8, 39.3, 0.0],
  ['`history.transferProcessorMaxPollRPS=1000`', 14.4, 1.5, 1.5],
  ['both of the last two (what dex starts its dev servers with)', 16.2, 1.6, 0.0],
];

/** "Where a dispatch waits": the experiment, its table and what dex changed for it. */
export function dispatchSection(): string[] {
  return [
    '## Where a dispatch waits',
    '',
    'Every step of the pipeline is three hops: the workflow task is scheduled and a poller takes it, the activity it schedules is taken by a poller, the activity completes. Splitting the history\'s event times per hop (`bench/probes/probe-dispatch.ts`, 20 steps, median of 8 runs, a fresh dev server for each row):',
    '',
    '| dev-server dynamic config | ms / step | workflow task scheduled → started | activity scheduled → started |',
    '|---|---:|---:|---:|',
    ...PROBES.map(([config, step, wft, act]) => `| ${config} | ${f(step)} | ${f(wft)} | ${f(act)} |`),
    '',
    'Both waits were the same ~40 ms, and neither was the network, the worker\'s pollers, matching\'s partitions or long polls: the dev server has **one history shard**, and its transfer-queue reader (the loop that hands new workflow and activity tasks from history to matching) is rate-limited to `history.transferProcessorMaxPollRPS` = 20 reads a second. A task written just after a read waits for the next one. Raising the limit to 1000 takes a step from 102 ms to 14 ms; the reader reads when history notifies it of a new task (its idle poll interval is a minute), so a higher limit costs nothing while idle. A production cluster spreads this over many shards (512 by default), which is why Temporal Cloud sees ~13 ms.',
    '',
    'Eager activity execution (the completing worker gets its activity in the workflow-task reply) removes the remaining ~1.5 ms of an activity\'s dispatch, but it applies only to an activity on the workflow\'s own task queue; on top of the reader fix it measured no gain (16.2 vs 14.4 ms, within noise).',
    '',
    'So `dex server`, `dex`\'s detached dev server, the tests\' and the bench\'s dev servers all start with `DEV_SERVER_DYNAMIC_CONFIG` (`client/server/dev-server.ts`): the reader limit at 1000, eager activity execution on, one partition per task queue ("Where many runs at once wait") and queue checkpoints every second ("Queue checkpoints"). A dex run against a real cluster does not need them.',
    '',
  ];
}

/** The real-turn section and the issue's targets, side by side. */
export function turnSection(doc: BenchDoc): string[] {
  const { turn } = doc;
  if (!turn?.rows) return [];
  const [short, long] = turn.turns;
  const zero = turn.rows.find((r) => r.latencyMs === 0);
  const turnsOf = (r: (typeof turn.rows)[number]) => r.turns ?? turn.turns;
  const zeroNote = zero && turnsOf(zero)[1] !== long ? ` At latency 0 (the target's figure) the long task has ${turnsOf(zero)[1]} turns and ${zero.perTurnSamplesMs?.length ?? 1} pairs run: one ${short}-and-${long}-turn pair moved by about ±10 ms a turn from run to run, and a longer task divides a task's own noise by more turns; the figure is the pairs' median (each pair's figure in the last column).` : '';
  return [
    '## Real turns',
    '',
    `Actual \`taskWorkflow\`s (sample repository, no verify) against the fake Anthropic server, which answers from a cassette after a fixed latency; each turn is one \`callModel\` and one tool call (\`write_file\`, one \`runTurnTools\`; \`runTool\` before "Tool calls of one turn"). A short and a long task per latency (${short} and ${long} turns unless the row says otherwise); their difference divided by the turns between them is one turn with the task's fixed costs (worktree, context, checkpoint commit, completion) cancelled.${zeroNote} The slower rows run one pair. CPU is dev server + bench process over the row's tasks.`,
    '',
    '| model latency ms | turns (short / long) | short task ms | long task ms | ms per turn | dex adds ms / turn | as % of the model | CPU ms / turn | ms per turn, each pair |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---|',
    ...turn.rows.map((r) => {
      const [a, b] = turnsOf(r);
      return `| ${r.latencyMs} | ${a} / ${b} | ${r.wallMs[a]} | ${r.wallMs[b]} | ${f(r.perTurnMs)} | ${f(r.addedMs)} | ${r.addedPercent === null ? 'n/a' : `${r.addedPercent} %`} | ${r.cpuMsPerTurn ?? 'n/a'} | ${(r.perTurnSamplesMs ?? [r.perTurnMs]).map((x) => f(x)).join(', ')} |`;
    }),
    '',
    'What dex adds per turn includes the tool\'s own work (a file write in the worktree) and the store writes of the reply, the tool result and the transcript, not only orchestration.',
    '',
    'Where a turn of ~50 ms at latency 0 goes (a probe of three 13-turn tasks on 2026-11-22, splitting each history by its event times, medians): each activity and workflow task waits 1.6–1.7 ms for a poller; `callModel` takes 11.2 ms from scheduled to completed and `runTool` 17.0 ms; each workflow task takes 7 ms from started to completed, including what it publishes (the search-attribute upsert when the cost changed, every model call). In `runTool`, the worktree fingerprint (one `git status`, for runaway protection) was the largest part: forking copies the forking process\'s page tables, so a spawn from the bench process, which holds the worker, the client, the fake model and ~500 MB, blocked its event loop ~6 ms (a CPU profile: 312 ms of `execFile` over 52 fingerprints; `git --version` costs 1 ms of blocking from a 48 MiB process and 9.8 ms from a 661 MiB one). The fingerprint\'s `git status` now goes through the **spawner** (`host/spawner/`), one small long-lived child per worker process that starts dex\'s short read-only commands: the turn went from 49.0 ms (41.3–54.9 over 7 pairs, this section on its own) to 42.4 ms (36.5–47.9) the same way. Switching publishing off measured 41 ms per turn against 50 with it (an earlier probe). CPU per turn, server and worker together, is ~215 ms, which is what bounds many concurrent tasks.',
    '',
  ];
}

/** The issue's targets against this run. */
export function targetsSection(doc: BenchDoc): string[] {
  const { b1, b2, b3, turn } = doc;
  const ns = Object.keys(b1.dex.perStepMs).map(Number).sort((a, b) => a - b);
  const big = ns[ns.length - 1];
  const row64 = b2.rows.find((r) => r.m === 64);
  const row256 = b2.rows.find((r) => r.m === 256);
  const turn0 = turn?.rows.find((r) => r.latencyMs === 0);
  const yes = (ok: boolean | undefined) => (ok === undefined ? 'not measured' : ok ? 'met' : '**not met**');
  const resume = (s: string) => b3.scenarios.find((x) => x.scenario === s);
  const noDup = b3.scenarios.every((s) => s.commitsOnBranch === 1 && Object.values(s.storedRows).every((r) => r.rows === r.distinctKeys));
  return [
    '## Targets (issue 16)',
    '',
    '| target | this run | |',
    '|---|---|---|',
    `| B1 regular-activity step ≤ 25 ms | ${f(b1.dex.perStepMs[big].median)} ms at N = ${big} (was 101) | ${yes(b1.dex.perStepMs[big].median <= 25)} |`,
    `| local steps ≤ 5 ms | ${f(b1.dexLocal.perStepMs[big].median)} ms at N = ${big} | ${yes(b1.dexLocal.perStepMs[big].median <= 5)} |`,
    `| a turn with one tool call adds ≤ 50 ms | ${turn0 ? `${f(turn0.addedMs)} ms at latency 0` : 'n/a'} | ${yes(turn0 && turn0.addedMs <= 50)} |`,
    `| B2: 64 runs ≤ 1.5× ideal | ${row64 ? `${row64.dexVsIdeal}× (was 4.9×)` : 'n/a'}; 256 runs: ${row256 ? `${row256.dexVsIdeal}×` : 'n/a'} | ${yes(row64 && row64.dexVsIdeal <= 1.5)} |`,
    ...['mid-activity', 'between-activities'].map((s) => `| B3 resume ≤ 5 s, ${s} | ${resume(s) ? `${resume(s)!.resumeSeconds} s` : 'n/a'} | ${yes(resume(s) && resume(s)!.resumeSeconds <= 5)} |`),
    `| B3 no duplicate commit, row or answered model call | ${noDup ? 'none' : 'DUPLICATES'} | ${yes(noDup)} |`,
    '',
  ];
}

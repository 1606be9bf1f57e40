/**
 * "The workflow thread's watchdog", "Queue checkpoints" and "Eager start" of docs/performance.md:
 * side experiments of issue 16 measured by hand on 2026-11-22 (`bench/probes/probe-concurrency.ts`,
 * `bench/probes/probe-eager-start.ts`, each on a fresh dev server), so the figures are kept here rather
 * than in the bench's JSON.
 */
import { b2ProbeTable, type B2Probe } from './report-concurrency';
import { quantile, round } from '../stats';

const PROBES: B2Probe[] = [
  { config: 'the SDK as shipped: a vm timeout on every call into a workflow; Go\'s default GC (`GOGC=100`)', ratio: 1.8, serverCpuS: 3.87, workerCpuS: 2.11, gapMs: [44.4, 82.2, 144.8] },
  { config: 'one watchdog per workflow thread (the patch); `GOGC=100`', ratio: 1.58, serverCpuS: 3.72, workerCpuS: 2.02, gapMs: [25.1, 43.2, 138.2] },
  { config: 'the patch and `GOGC=400` (what dex runs now)', ratio: 1.51, serverCpuS: 3.45, workerCpuS: 2.0, gapMs: [20.9, 39.8, 141.2] },
];

/** The watchdog finding, with the GC setting measured beside it. */
export function watchdogSection(): string[] {
  return [
    '## The workflow thread\'s watchdog',
    '',
    'A CPU profile of the worker during B2\'s 64 runs showed its workflow thread (the SDK runs workflow code in a Node worker thread) busy 43 % of the time, most of it inside `vm`\'s `runInContext` itself rather than in any workflow code. The SDK passes `timeout: isolateExecutionTimeout` (5 s) on every call into a workflow\'s context, three calls per activation, so a workflow stuck in a busy loop cannot hang the thread; Node enforces each such timeout by starting an OS thread with its own event loop and joining it when the call returns (nodejs/node#47739, never merged). Alone that costs ~50 µs a call; with both cores busy the join waits for the scheduler, 67–165 µs a call in a micro-benchmark beside two busy loops, and in B2 about 2 ms per activation on the one thread every run\'s workflow tasks go through.',
    '',
    'dex keeps the guard but moves it (`patches/@temporalio+worker+1.24.0.patch`, applied by `patch-package` on `npm install`): the workflow threads run without a per-call timeout, and the main thread keeps one timer per workflow thread that fires when requests wait and the thread has answered none for the same 5 s. Then workflow code is not yielding: the thread is stopped and the worker fails with `Workflow Worker Thread stopped: activate-workflow for run <id> got no answer in 5000 ms (workflow code that never yields: a busy loop or a deadlock)`, where the SDK as shipped failed that workflow task and kept the worker (whose thread the loop then held for 5 s on every retry). If the main thread was blocked itself (a check comes late), answers may wait unread, so the workflow thread gets a new window rather than being stopped. `test/worker/workflow-thread-watchdog.test.ts` runs a busy-loop workflow and sees the worker stop within the timeout, naming the run (on the unpatched SDK it fails), and checks both cases on the client with a stand-in thread.',
    '',
    'B2\'s 64 runs in `bench/probes/probe-concurrency.ts` (median of 5 batches after a warm-up, each row on a fresh dev server; CPU in seconds for one batch of 640 steps; the time from a workflow task\'s start to its completion, which includes the worker\'s queue, over the last batch):',
    '',
    ...b2ProbeTable('change', 'workflow task started → completed', PROBES),
    '',
    'The worker\'s CPU barely moves: what the watchdog cost was time its one workflow thread stood still while both cores were busy. The server\'s heap is mostly the short-lived garbage of each request, so `client/server/dev-server.ts` starts every dex dev server (and the bench\'s) with `GOGC=400` unless the caller set `GOGC`: 9 % less server CPU in B2 for a peak RSS of ~520 MiB instead of ~280 MiB (200: 363 MiB, 800: 763 MiB with no further gain). The tests\' dev servers keep Go\'s default: they measure behaviour, not speed.',
    '',
  ];
}

/** Ten 64-run batches back to back (`--runs 10 --pause 0`): each batch's ratio and server CPU s, without and with checkpoints every second. */
const CHECKPOINT_RUNS: [string, [number, number][]][] = [
  ['every 30 s (the default)', [[1.6, 3.39], [1.5, 3.37], [1.48, 3.45], [1.54, 3.65], [1.55, 3.59], [1.51, 3.63], [1.54, 3.68], [1.55, 3.7], [1.75, 4.16], [1.72, 4.24]]],
  ['every second (dex\'s dev servers now)', [[1.59, 3.28], [1.51, 3.33], [1.53, 3.48], [1.48, 3.43], [1.5, 3.47], [1.48, 3.47], [1.53, 3.66], [1.49, 3.54], [1.45, 3.42], [1.55, 3.59]]],
];

/** Why dex's dev servers checkpoint their history queues every second. */
export function checkpointSection(): string[] {
  return [
    '## Queue checkpoints',
    '',
    'The bench\'s B2 at 64 runs measured more than the probe, and its batches grew slower one after another (3184 → 3809 ms in a full run). The probe shows the same once it runs long enough with no rest between batches (`bench/probes/probe-concurrency.ts --runs 10 --pause 0`): after ~30 s the server\'s CPU per batch jumps by a quarter. `perf record` of the server in an early and a late 6-s window: the history queues\' `executableTracker.split` (under `processNewRange` → `MergeSlices`) went from 2 to 612 of 3953 samples (15 %), and the timer-task range reads tripled. Until a queue checkpoints, it keeps every finished task in memory and splits all of them on each new read, and the transfer queue reads often (its reader limit is 1000 a second, "Where a dispatch waits"); a checkpoint, every 30 s by default, drops them and deletes them from the database. Temporal\'s own functional tests set it to 1 s. dex\'s dev servers now checkpoint both the transfer and the timer queue every second (`history.transferProcessorUpdateAckInterval`, `history.timerProcessorUpdateAckInterval`; `client/server/dev-server.ts`), which costs one small shard-info write a second. Ten batches back to back, each batch\'s ratio (server CPU s):',
    '',
    '| checkpoints | batch 1 … 10 | median |',
    '|---|---|---:|',
    ...CHECKPOINT_RUNS.map(([name, rows]) => `| ${name} | ${rows.map(([r, cpu]) => `${r}× (${cpu})`).join(', ')} | ${round(quantile(rows.map(([r]) => r), 0.5), 2)}× |`),
    '',
  ];
}

/** What eager workflow start saves a run served by the starting process. */
export function eagerStartSection(): string[] {
  return [
    '## Eager start',
    '',
    'When a `dex` command serves its run with a worker in its own process (no worker polls its queues), it starts the run through a client on that worker\'s connection with `requestEagerStart` (`client/run/drive-run.ts`): the server returns the run\'s first workflow task in the start call\'s reply, and the task never goes through the task queue. `bench/probes/probe-eager-start.ts` (one-step runs one after another, medians of 20, two rounds each): the first workflow task waited 1.99 and 1.97 ms for a poller without it and 0.05 ms with it; start to result took 23.9 and 21.2 ms without, 19.8 and 19.5 ms with. `test/integration/cli/cli-run.integration.test.ts` checks that `dex demo`\'s first workflow task was started by the start call. A run started while another process\'s worker serves the queues starts as before; roadmap, sheet and layer children are started by their parent workflow.',
    '',
  ];
}

/**
 * "Where many runs at once wait" of docs/performance.md: the B2 experiment of issue 16
 * (`npx tsx bench/probes/probe-concurrency.ts`), 64 concurrent 10-step runs at a 200 ms model, each row
 * on a fresh dev server, the median of 5 runs after a warm-up. Measured by hand on 2026-11-22
 * (a dev server per row), so the figures are kept here rather than in the bench's JSON.
 */

/** One B2 probe row: what the dev server or worker ran with, B2's ratio, the CPU of one batch, and one gap of the last batch's workflow tasks, ms (median, p90, max). */
export interface B2Probe {
  config: string;
  ratio: number;
  serverCpuS: number;
  workerCpuS: number;
  gapMs: [number, number, number];
}

/** A table of B2 probe rows; `gap` names their workflow-task gap. */
export function b2ProbeTable(first: string, gap: string, rows: B2Probe[]): string[] {
  return [
    `| ${first} | 64 runs / ideal | server CPU s | worker CPU s | ${gap}, ms (median · p90 · max) |`,
    '|---|---:|---:|---:|---|',
    ...rows.map((p) => `| ${p.config} | ${p.ratio}× | ${p.serverCpuS} | ${p.workerCpuS} | ${p.gapMs.join(' · ')} |`),
  ];
}

const PROBES: B2Probe[] = [
  { config: 'reader limit 1000, eager activities (dex\'s servers before), 4 partitions per task queue', ratio: 2.49, serverCpuS: 4.11, workerCpuS: 2.21, gapMs: [21.3, 82.6, 2434] },
  { config: 'the same, 1 partition (`matching.numTaskqueueReadPartitions=1`, `…WritePartitions=1`)', ratio: 1.75, serverCpuS: 3.8, workerCpuS: 1.99, gapMs: [18.9, 84.4, 381] },
];

/** The section: the experiment, the partition finding, and why the rest is CPU. */
export function concurrencySection(): string[] {
  return [
    '## Where many runs at once wait',
    '',
    'B2 at 64 runs was 2.5–2.7× its ideal after the reader fix, though one run alone is 1.1×. A run ends with its slowest step, so the tail matters: `bench/probes/probe-concurrency.ts` runs B2\'s 64 runs on a fresh dev server and splits the last batch\'s histories by event times (median of 5 batches after a warm-up; CPU in seconds for one batch of 640 steps):',
    '',
    ...b2ProbeTable('dev server', 'workflow task waits for a poller', PROBES),
    '',
    'With four partitions, the first workflow task of some run was written to a partition no poller was waiting on, and waited there up to 2.4 s until a poller came by; that one run set the batch\'s time. A dev server is one process with, usually, one worker per queue, so partitions buy it nothing: dex\'s dev servers now run with one (`client/server/dev-server.ts`). A one-run step is unchanged (10.3 against 11.2 ms in `bench/probes/probe-dispatch.ts`); production clusters keep their own partition settings. B2 itself, whose batches follow each other without the probe\'s pause of a second, measured 1.95× (B2 alone on a fresh server) and 1.96× (the full run below) with one partition, against 2.69× with four in the full run before it.',
    '',
    '**What is left is CPU.** With one partition a step costs about 9 CPU-ms (server 5.9, worker and client 3.1), so one batch of 64 × 10 steps needs 5.8 CPU-s: 2.9 s on this machine\'s 2 cores if they never idled, already 1.45× the 2 s ideal. The 64 runs also move in step (every model call takes the same 200 ms), so the cores idle while all of them wait and queue when all of them answer; the median wait for a poller stays ~19 ms but the p90 is ~84 ms. 1.5× at 64 runs needs a step under ~6 CPU-ms here. Where the server\'s CPU goes (`perf record` of the dev server over 12 s of this experiment, 5.5 k samples): 21 % writing workflow state to its in-memory SQLite, and 11 % (across all its queries) SQLite parsing each statement anew, as the pure-Go driver keeps no statement cache; 9 % Go\'s garbage collector; 5 % visibility records (start, close and one upsert per run); 3 % tagging metrics; 3 % timer tasks; every call crosses frontend, history and matching as separate gRPC services with their interceptor chains. On the worker, the SDK\'s promise hooks (kept for the Web UI\'s stack-trace view; no option turns them off) took 12 % of its CPU when switched off by hand, without moving the ratio (1.77×, and 1.49–1.52× against 1.51–1.57× after the watchdog change below); dex\'s patch now defers most of their work ("Promise hooks"). Two things dex does own moved it: the SDK\'s per-call watchdog, which stalled the one workflow thread, and the server\'s GC target (next section): 1.80× → 1.51× in this probe. What remains is CPU: a batch then costs 5.45 CPU-s (server 3.45, worker and client 2.0), ~8.5 CPU-ms a step counting each run\'s start and end, so 2.7 s on 2 cores, 1.36× the ideal, before any queueing in the lockstep; on four cores the same CPU would be under the ideal itself (not measured here).',
    '',
  ];
}

/**
 * "First workflow tasks", "gRPC compression" and "Promise hooks" of docs/performance.md: side
 * experiments of issue 16 measured by hand on 2026-11-22 (`bench/probes/probe-concurrency.ts`, each run on a
 * fresh dev server; `perf record` of the server; `node --cpu-prof` of the probe), so the figures are
 * kept here rather than in the bench's JSON.
 */

/** One probe run: how runs were started and how many workflow-task slots the worker had; B2's ratio; the first workflow tasks' waits, ms (median, p90, max). */
interface FirstTaskProbe {
  start: string;
  slots: number;
  ratio: number;
  waitMs: [number, number, number];
}

const FIRST_TASKS: FirstTaskProbe[] = [
  { start: 'through the client\'s own connection', slots: 40, ratio: 1.51, waitMs: [232, 299.5, 339] },
  { start: 'through the client\'s own connection', slots: 100, ratio: 1.54, waitMs: [244.2, 326.3, 364.2] },
  { start: 'eagerly, through the worker\'s connection', slots: 40, ratio: 1.51, waitMs: [193.5, 326.6, 400.7] },
  { start: 'eagerly, through the worker\'s connection', slots: 100, ratio: 1.46, waitMs: [0, 0, 0] },
];

/** Why a burst of starts waited, and what dex changed (eager start with enough slots). */
export function firstTaskSection(): string[] {
  return [
    '## First workflow tasks',
    '',
    'Split by step, the probe\'s last batch showed where a 64-run batch still lost time: a run\'s later workflow tasks waited 7 ms for the worker (median; p90 26 ms), but its first one 232 ms (p90 344, max 394). 64 starts arrive at once, each first task goes through the transfer queue and matching to the normal queue\'s pollers, and every run\'s first step waits behind them. More pollers did not help: `maxConcurrentWorkflowTaskPolls` 20 or 40, `nonStickyToStickyPollRatio` 0.5 or 1, autoscaling pollers and a second workflow thread all left the first tasks waiting 180–470 ms at most, and some cost CPU (autoscaling: 1.67×).',
    '',
    'Eager start removes the path: the start call\'s reply carries the first task to the starting process\'s worker ("Eager start"). It needs a free workflow-task slot at the time of the call, and with the SDK\'s 40 only 28 of 64 runs got one. dex\'s workers now have 100 (`WORKFLOW_TASK_SLOTS`, `worker/start-worker.ts`): tasks run one at a time on the workflow thread whatever the number, so idle slots cost nothing. B2 now starts its runs as a dex command starts a run it serves, through a client on its worker\'s connection with `requestEagerStart` (`bench/scenarios/b2-concurrency.ts`), and the bench worker has dex\'s slots. `bench/probes/probe-concurrency.ts [--eager]`, 64 runs, median of 5 batches:',
    '',
    '| runs start | slots | 64 runs / ideal | first workflow task waits, ms (median · p90 · max) |',
    '|---|---:|---:|---|',
    ...FIRST_TASKS.map((p) => `| ${p.start} | ${p.slots} | ${p.ratio}× | ${p.waitMs.join(' · ')} |`),
    '',
    'Runs that a `dex worker` serves for another process, and a roadmap\'s or layer\'s children (started by their parent workflow), start as before.',
    '',
  ];
}

/** The worker connection's gzip, measured on the server and in the probe. */
export function compressionSection(): string[] {
  return [
    '## gRPC compression',
    '',
    'In `perf record` of the dev server during B2, 2.5 % of its samples gzipped replies and 1.3 % gunzipped requests: the SDK\'s Core client compresses every request by default and the server answers in kind. Between two processes on one machine that buys nothing. dex\'s worker connections to a loopback address now send and accept plain messages (`grpcCompression: { codec: \'none\' }`, `client/server/worker-connection-options.ts`); to any other address they keep gzip, which saves bandwidth over a network. The bench\'s worker connection is made the same way. In the probe (two runs each) the server\'s CPU per batch went from 3.48 and 3.57 s to 3.40 and 3.47 s and the worker\'s from 2.07 and 2.14 s to 1.95 and 1.97 s, the ratio from 1.51 and 1.58× to 1.52 and 1.52×: a few per cent of CPU, below the probe\'s noise in the ratio.',
    '',
  ];
}

/** The promise hook's cost on the workflow thread and what dex's patch defers. */
export function promiseHookSection(): string[] {
  return [
    '## Promise hooks',
    '',
    'The SDK records where every promise a workflow creates was made, so the stack-trace query (the Web UI\'s "Stack Trace" tab) can show where a run waits. A CPU profile of the probe\'s worker (`node --cpu-prof`, a warm-up and four 64-run batches) had its workflow thread busy 3.8 s, 1.03 s of it in that hook: for every promise it compiled two small functions to reach the workflow\'s globals (which also made Node look for a source map each time) and captured and formatted a stack trace, source-mapping each frame, though almost every promise settles without anyone asking.',
    '',
    'dex\'s SDK patch (`patches/@temporalio+worker+1.24.0.patch`) compiles those functions once per vm context and keeps only the call sites, formatting them the first time a query reads them; the checks that link `Promise.all` and `Promise.race` to their inner promises read the two native frames they test unformatted. The same profile then had the thread busy 2.9 s, 0.37 s of it in the hook. In the probe the worker\'s CPU per batch fell from 2.0–2.1 s to 1.87–1.99 s (with the hook switched off by hand: 1.79–1.85 s). `test/worker/workflow-stack-trace.test.ts` queries two waiting runs that share the vm context and a run waiting on `Promise.all`, through `__stack_trace` and `__enhanced_stack_trace`; the answers were the same, character for character, on the unpatched SDK, and the test fails when the aggregator check reads the wrong frames or a promise is filed under the wrong run.',
    '',
  ];
}

import type { ScaleRun } from '../scenarios/scale-run';
import type { BenchDoc } from './bench-doc';

const yes = (ok: boolean | undefined) => (ok === undefined ? 'not measured' : ok ? 'met' : '**not met**');
const named = (r: ScaleRun) => (r.targets === 'activity' ? (r.crash ? 'activities, worker SIGKILLed halfway' : 'activities (dex today)') : 'a child workflow each (before)');
/** Temporal's warning: a history past this many events. */
const HISTORY_WARNING = 10_240;

/** "Layers at scale" (issue 31): a nightly layer over many topics, targets in activities against a child workflow each. */
export function scaleSection(doc: BenchDoc): string[] {
  const { scale } = doc;
  if (!scale?.runs?.length) return [];
  const [children, activities] = scale.runs;
  const crashed = scale.runs.find((r) => r.crash);
  const b2 = doc.b2.rows.find((r) => r.m === 256);
  const allUnder = scale.runs.every((r) => r.histories.longest < HISTORY_WARNING && (r.histories.child ?? 0) < HISTORY_WARNING);
  return [
    '## Layers at scale',
    '',
    `A layer over many topics as a night runs it (\`bench/scenarios/b8-layer-scale.ts\`): one message per topic, \`fetch_messages\`, \`fetch_insights\`, one \`llm_call\` answered by the fake Anthropic server after ${activities.latencyMs} ms, \`store_insight\`; \`concurrency: ${activities.concurrency}\`, so the ideal is ${activities.concurrency} topics a second. One \`dex worker\` process (its own SQLite store) and the dev server share this machine's ${doc.machine.cpus} cores; CPU is user + system from \`/proc/<pid>/stat\` over the run, per topic. The first row is how every layer ran before: a child workflow per target (now \`target_workflows: true\`); the others run a few targets to an activity (docs/layers.md#where-a-target-runs).`,
    '',
    '| targets run in | topics | wall s | topics/s | × ideal | CPU ms/topic: server | worker | total | chain runs | longest history | a child\'s history | topics with one insight |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...scale.runs.map(
      (r) =>
        `| ${named(r)} | ${r.topics} | ${r.seconds} | ${r.topicsPerSecond} | ${r.vsIdeal} | ${r.cpuMsPerTopic.server} | ${r.cpuMsPerTopic.worker} | ${r.cpuMsPerTopic.total} | ${r.histories.runs} | ${r.histories.longest} | ${r.histories.child ?? '–'} | ${r.topicsWithOneInsight} of ${r.topics} |`,
    ),
    '',
    `CPU per topic, activities against a child workflow each: **${scale.cpuRatio}** (1/${Math.round(1 / scale.cpuRatio)}). The worker run killed halfway paid for its replacement's start (bundling the workflows) on top.`,
    crashed?.crash
      ? `The crash: SIGKILL after ${crashed.crash.atRequest} model requests, a new worker at once${crashed.crash.resumeSeconds > 0 ? `, whose first model request came ${crashed.crash.resumeSeconds} s later` : ''}. ${crashed.crash.askedAgain} calls were asked again, each one in flight when the worker died (at most the ${crashed.concurrency} under way); ${crashed.crash.storedAskedAgain} whose answer had been stored were asked again. Every topic has exactly one insight (${crashed.topicsWithOneInsight} of ${crashed.topics}).`
      : '',
    `A 100,000-topic night at this rate: ${scale.estimate100k.hoursAtMeasuredRate} h on this machine, ${scale.estimate100k.cpuHours} CPU-hours of orchestration, model time aside (docs/production.md#a-night-over-100000-topics).`,
    '',
    '| target (issue 31) | this run | |',
    '|---|---|---|',
    `| every history under ${HISTORY_WARNING} events at ${activities.topics} topics | longest ${Math.max(...scale.runs.map((r) => r.histories.longest))} | ${yes(allUnder)} |`,
    `| CPU per topic ≤ 1/5 of a child workflow each | ${scale.cpuRatio} (${activities.cpuMsPerTopic.total} against ${children.cpuMsPerTopic.total} ms) | ${yes(scale.cpuRatio <= 0.2)} |`,
    `| crash at scale: one insight per topic, no stored answer asked again | ${crashed?.crash ? `${crashed.topicsWithOneInsight} of ${crashed.topics}; ${crashed.crash.storedAskedAgain} asked again` : 'n/a'} | ${yes(crashed?.crash && crashed.topicsWithOneInsight === crashed.topics && crashed.crash.storedAskedAgain === 0)} |`,
    `| B2 at 256 runs ≤ 3× ideal, reading turns in one call | ${b2?.reading ? `${b2.reading.vsIdeal}×` : 'n/a'} | ${yes(b2?.reading && b2.reading.vsIdeal <= 3)} |`,
    `| B2 at 256 runs ≤ 3× ideal, each step an activity | ${b2 ? `${b2.dexVsIdeal}×` : 'n/a'} | ${yes(b2 && b2.dexVsIdeal <= 3)} |`,
    '',
    "B2 at 256 runs is bound by CPU, and on this machine the dev server alone spends what 3× allows. A batch is 2,560 steps, each a regular activity (six history events, a dispatch, a workflow task). In `bench/probes/probe-concurrency.ts --m 256 --eager` (2026-11-26, three runs, medians of four batches each) the server spent 11.9, 13.1 and 13.9 CPU-seconds a batch (4.7–5.4 ms a step) and the worker 5.9–6.6 (2.3–2.6 ms): 256 runs of ten 200 ms steps may take 6 s at 3×, and 11.9 CPU-seconds on two cores take 5.95 s with nothing left for the worker, the starter or the kernel. Where the server's CPU goes (`perf record`, 15 s of a batch): the three history calls of a step (a workflow task started 13 %, completed 12 %, an activity completed 10 %), SQLite preparing every statement anew (12 %: the dev server's driver keeps no prepared statements), the visibility records of each run's start, close and one upsert (9 %), and Go's allocator, collector and stack growth (about 30 %); no setting of the dev server reaches these beyond `GOGC`, already at 400. Meeting 3× takes fewer than one activity per model call, a batch of dependent calls in one activity as a layer target runs its nodes or a Claude Code session runs its turns: dex now does that for reading turns (\"Reading turns in one call\"), which meets it; a turn that writes or runs a command is still two activities, and at 256 runs of those steps the machine stays the limit. Tried and not kept: the dev server with `GOMAXPROCS=1`: 8 % less server CPU (11.70 against 12.69 s a batch), but 5.97× against 5.08×, one Go thread becoming the limit; `GODEBUG=adaptivestackstart=1` (a goroutine starts with the average stack, as stack growth was 6 % of the samples): 4.89× and 4.90× against 5.46× and 5.01× in alternating runs, server CPU 12.15 and 12.48 against 13.86 and 11.91 s, within the spread between runs. The levers for agent runs (\"Tool calls of one turn\") cut what a turn with several tool calls costs.",
    '',
  ];
}

/** "Bounded history" (issue 31, the first half): continue-as-new and upserts a person would see, measured by the integration test. */
export function boundedHistorySection(): string[] {
  return [
    "## Bounded history",
    "",
    "Issue 31 measured a layer over 2,000 topics (`concurrency: 64`, replay cassette): its history grew",
    "6.2 events per topic, 12,446 in all, 2,004 of them search-attribute upserts, with no",
    "continue-as-new; over 9,000 topics Temporal terminated it at 51,198 events. Two changes:",
    "",
    "- **Continue-as-new** ([layers.md](layers.md#continue-as-new)): a layer run hands its targets",
    "  left to a new run of the same workflow id before its history reaches its limit (8,000 events",
    "  by default, or Temporal's own suggestion, at 4,096 on a default server).",
    "- **Upserts a person would see**: `workflows/run/run-publisher.ts` upserts dex's search",
    "  attributes when the state, phase or gate changes, and a change of cost alone at most once a",
    "  minute of workflow time (every upsert writes the exact cost, so the last one is exact). The",
    "  old rule upserted on every change of cost to a ten-thousandth: once per target in a layer.",
    "",
    "`test/integration/layer/layer-continue-as-new.integration.test.ts`, 200 topics, `concurrency: 8`, a limit of 400",
    "events (so the chain has several runs), on this 2-core machine:",
    "",
    "| | runs of the chain | history of each run (events) | parent events per topic | upserts per topic |",
    "|---|---:|---|---:|---:|",
    "| before (issue 31, 2,000 topics, one run) | 1 | 12,446 | 6.2 | 1.0 |",
    "| cost upserted when it moved by a cent (a first try) | 4 | 362, 364, 365, 333 | 7.1 | 0.58 |",
    "| state, phase and gate at once, cost once a minute (now; two test runs) | 4 | 363, 366, 363, 274 · 363, 363, 366, 250 | 6.8 · 6.7 | 0.105 |",
    "",
    "The upserts left are about five per run of the chain (its start, its phases, its end),",
    "whatever its number of targets. Events per topic stay near six: three child events and the",
    "workflow tasks that wake the parent, fewer at higher concurrency, where more children end in one",
    "workflow task (6.2 at 64); each run of the chain adds about twenty (targets left, results kept, the",
    "hand-over). The record recorded by released versions for five targets had 9 upserts; the",
    "chain's last run in `test/histories/layer-workflow-continue-as-new.json` has one per phase.",
    "",
    "Roadmaps continue as new by the same check (`workflows/roadmap/chain.ts`, [roadmaps.md](roadmaps.md#long-roadmaps)), counting 80 events for each task in flight: a task that lands at once adds 31 events to the roadmap's history, one whose branch was behind and ran a finalize child first up to 52.5. With a limit of 500 and `continueAsNewAfterTasks: 1000`, 24 tasks took 4 runs of 324, 314, 307 and 145 events, each task landed once (`test/integration/roadmap/roadmap-continue-as-new.integration.test.ts`).",
    "",
    "Since then a layer runs a few targets to an activity (\"Layers at scale\"): a run of the chain is bounded by the results it carries (`CARRY_BYTES`, `core/run/history-limit.ts`) long before its events, and over 20,000 topics no run of the chain passed 600 events.",
    "",
  ];
}

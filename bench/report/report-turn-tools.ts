/**
 * "Tool calls of one turn" of docs/performance.md (issue 31, the levers for agent runs): measured by hand on
 * 2026-11-26 with `bench/probes/probe-turn-tools.ts --m 32 --turns 6 [--reading]`, the code before the change run from a
 * checkout of it, three alternating pairs of runs of three batches each, so the figures are kept here rather than
 * in the bench's JSON.
 */

/** One side of the comparison: per 6-turn task and per turn, the medians of nine batches (the server's CPU: lowest–highest). */
const SIDES: [string, number, number, number, number, string, number][] = [
  ['three calls every turn · one activity per call (before, 8de46ca)', 27, 174, 8619, 26.4, '25.4–29.6', 34.3],
  ['three calls every turn · the turn\'s calls as one activity (now)', 17, 116, 8157, 20.7, '19.1–22.8', 31.5],
  ['every other turn reads alone · one activity per call (before)', 25, 162, 9474, 27.6, '25.8–29.8', 37.4],
  ['every other turn reads alone · reads in the model call, the others as one activity (now)', 15, 104, 8428, 21.0, '19.2–21.4', 33.7],
];

/** What running a turn's tool calls as one activity saves, and the lever considered beside it. */
export function turnToolsSection(): string[] {
  return [
    '## Tool calls of one turn',
    '',
    'A model turn often asks for several tools at once (read a file, list a folder, write the fix). Each call was an activity of its own, `runTool`: six history events, a dispatch and a workflow task per call. Now the calls of one turn are one activity, `runTurnTools` (`activities/tools/run-turn-tools.ts`, behind the patch `turn-tools-in-one-activity`, so runs started before replay as they ran): it runs them in the order the model wrote them, stores each result as its tool finishes and heartbeats before each call and while a command runs. A retry after a crash runs only the calls with no stored result, so a command is never run twice and no model call is asked again (`test/activities/tools/run-turn-tools.test.ts`). Its start-to-close is a single call\'s 20 minutes for each call (`turnToolsPolicy`). The worktree\'s fingerprint for runaway protection is taken once after the turn\'s tools, where it was taken after every call that may change files. A trace keeps a `RunTool` span per call, inside the turn\'s activity. What a person sees changes in two places: the Web UI shows one activity per turn, summarized as `turn 3 · read_file src/math.js, list_files src, edit_file src/math.js`, and `dex pause` takes effect after the turn\'s calls instead of between them.',
    '',
    'A turn whose calls are all quick reads (`read_file`, `list_files`, which change nothing and need no sandbox) has them run by its own model call, `callModel`, right after the reply is stored (`activities/model/reads-in-turn.ts`): a reading turn is one activity instead of two. The reads are stored as `runTurnTools` stores them, so a retried model call reuses its stored reply and reads only what is missing. The workflow learns it from the call\'s result (`toolsRun`), which history keeps, so runs recorded before replay unchanged. In a trace the reads are `RunTool` spans under `RunActivity:callModel`; in the Web UI the turn is its model call alone, and `dex log` shows the reads as before.',
    '',
    '`bench/probes/probe-turn-tools.ts`: 32 real `taskWorkflow`s at once on the sample repository, each of 6 turns against the fake Anthropic server answering after 200 ms; five turns ask for `read_file`, `list_files` and a write (with `--reading`, two of them the two reads alone), the sixth completes. Medians of nine batches, CPU per turn including each task\'s fixed costs (worktree, context, commit) spread over its turns:',
    '',
    '| | activities per task | history events per task | wall ms (32 tasks) | server CPU ms per turn | worker CPU ms per turn |',
    '|---|---:|---:|---:|---:|---:|',
    ...SIDES.map(([name, acts, events, wall, server, range, worker]) => `| ${name} | ${acts} | ${events} | ${wall} | ${server} (${range}) | ${worker} |`),
    '',
    'A third fewer history events and about a fifth less server CPU per turn (a quarter with reading turns), a tenth less wall time with reading turns; a turn of one call that writes (B6, "Real turns") is unchanged. The worker\'s CPU moves less: the tools, the store and the fake model it hosts cost the same.',
    '',
  ];
}

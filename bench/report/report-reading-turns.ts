import type { BenchDoc } from './bench-doc';

/** "Reading turns in one call" of docs/performance.md (issue 31): B2's runs with their steps chained, as dex answers reading turns. */
export function readingTurnsSection(doc: BenchDoc): string[] {
  const rows = doc.b2.rows.filter((r) => r.reading);
  if (rows.length === 0) return [];
  const last = rows[rows.length - 1];
  return [
    '## Reading turns in one call',
    '',
    'An agent reads before it writes: a turn whose tool calls are all quick reads (`read_file`, `list_files`) had them run by its own model call already ("Tool calls of one turn"), but the next turn was another activity: six history events, a dispatch and a workflow task for each reading turn. Now, after such a reply, `callModel` answers the next turn itself (`activities/model/reading-turns.ts`, behind the patch `reading-turns-in-one-call`): it stores the user message with the reads\' results, asks the model, stores the reply, runs its reads if it only reads, and so on. It reports to the workflow at the first reply that asks for anything else (a write, a command, a completion), or when it is out of room:',
    '',
    '- **Turns.** The workflow gives it the turns left before the phase\'s turn cap and before its runaway limit (reading turns leave the worktree as it was, so they count towards `noChangeTurns`): a chain never passes a limit that separate calls would have stopped at, and the workflow then counts each turn, step and runaway check as if it had been a call of its own (`workflows/task/agent/agent-phase.ts`).',
    '- **Money.** Each further turn is made only when its worst case fits what is left of the call\'s allowance after the turns before it; one that does not is left to the workflow, which reserves for it as for any call.',
    '- **Time.** No further turn starts after 10 s (`READING_CHAIN_MS`, `workflows/run/policies.ts`). `dex pause`, `dex status` and the Web UI see the call\'s end, so a chain holds them up at most about that long plus one turn; an activity\'s own cost, ~10 ms of CPU between server and worker, is then at most a thousandth of it. With a model that takes 10 s or more a chain is one turn, as before: chaining pays where turns are short, which is where orchestration is a large part of them.',
    '- **Crashes.** Every turn is stored before the next is asked, as separate calls stored them, so a retried call reuses every reply and read it finds and asks the model only for the turn that had no answer (`test/activities/model/reading-turns.test.ts`; a SIGKILL in the middle of a chain in `test/integration/task/reading-turns.integration.test.ts`).',
    `- **Activity slots.** A chain holds its worker's activity slot for all its turns. With the SDK's 100 slots a worker, 156 of B2's 256 chained runs waited for a slot, and a batch took 3.4× its ideal (B2 alone, 2026-11-26; ${last.reading!.vsIdeal}× at ${last.m} runs in this run). dex's host workers now have 1,000 (\`ACTIVITY_SLOTS\`, \`worker/start-worker.ts\`): how much works at once is already set by the runs, a task one activity at a time, a roadmap and a layer by their \`concurrency\`.`,
    '- **What a person sees.** The Web UI shows one `callModel` activity for the chain, summarized with the turn it started at; its result says how many turns it made (`turns`). `dex status`, `dex log` and a run\'s spending show every turn as before.',
    '',
    `B2 measures it with the same runs as above, each run\'s ${doc.b2.steps} steps answered in one activity that stores each answer in a dex store before the next step and heartbeats after each (\`modelSteps\`, \`bench/bench-activities.ts\`), the way \`callModel\` answers reading turns; the same warm-up and batches, after the runs above:`,
    '',
    '| M | each step an activity: ms | × ideal | dev-server · worker CPU s | reading turns in one call: ms | × ideal | dev-server · worker CPU s | batches ms |',
    '|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map((r) => {
      const c = r.reading!;
      return `| ${r.m} | ${r.wallMs.dex} | ${r.dexVsIdeal} | ${r.devServerCpuSeconds ?? 'n/a'} · ${r.workerCpuSeconds} | ${c.medianMs} | ${c.vsIdeal} | ${c.serverCpuSeconds ?? 'n/a'} · ${c.workerCpuSeconds} | (${c.warmUpMs}) ${c.batchesMs.join(', ')} |`;
    }),
    '',
    'In real `taskWorkflow`s (`bench/probes/probe-turn-tools.ts --m 32 --reading`: 32 tasks at once, six turns each against the fake Anthropic server answering after 200 ms, two of them reading turns followed by a turn that writes; each task\'s fixed costs, worktree, context and commit, spread over its turns; two runs of three batches each, on 2026-11-26, alternating with the code before the change):',
    '',
    '| | activities per task | history events per task | wall ms (32 tasks), batches | server CPU ms per turn | worker CPU ms per turn |',
    '|---|---:|---:|---|---|---|',
    '| each reading turn a model call of its own (before, 801af16) | 15 | 104 | 10041, 10939, 12408 · 10084, 9985, 9358 | 24.3, 25, 26 · 23.6, 24.6, 22 | 40.6, 42.6, 45.9 · 38.3, 39.8, 36.4 |',
    '| reading turns in one call (now) | 13 | 94 | 9360, 10429, 10259 · 9070, 10035, 10287 | 23.5, 23.4, 22.1 · 23.5, 23.3, 22.8 | 38.3, 39.8, 38 · 37.3, 38.8, 39.7 |',
    '',
    'Two activities and ten history events fewer per task, and a few per cent less CPU per turn, within the spread between batches: with two reading turns in six, and the tools, the store and the fake model costing the same, a task saves what two dispatches cost. The saving grows with the reading turns in a row, as in B2\'s runs.',
    '',
    'A turn that writes or runs a command is still a model call and a `runTurnTools` activity: its steps are the first rows\' case, and B2 at 256 runs of them stays bound by the dev server\'s CPU ("Layers at scale").',
    '',
  ];
}

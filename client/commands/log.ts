import type { WorkflowHandle } from '@temporalio/client';
import { setupReportId, workflowKeyPrefix } from '../../core/run/ids';
import type { DexStore } from '../../store/dex-store';
import { onePositional, parseCommandArgs, type Output } from '../cli-context';
import { COMMAND_HELP, usageOf } from '../command-help';
import { withExistingStore } from '../command-store';
import { RunHistory, type GateDecision } from '../run-history';
import { findRun, isRunning } from '../run-lookup';
import { renderDecision, renderStep, stepKey, stepSettled, transcriptSteps, type TranscriptLog } from '../render/run-log';
import { readSettings } from '../settings';
import { connectSaying } from '../run/slow-wait';

/** How often `--follow` looks for new steps. */
const FOLLOW_POLL_MS = 1_000;

/** One workflow's part of a log: its transcripts on this host, and the decisions people took at its gates. */
interface WorkflowLog {
  workflowId: string;
  /** What the task's setup did (the first line of its stored report), when it had one. */
  setup?: string;
  /** The verify commands setup picked (the report's `verify:` line), when the config had none. */
  verify?: string;
  transcripts: TranscriptLog[];
  /** Approvals and rejects with their notes and reasons, from the run's history (the run's own, not its children's). */
  decisions?: GateDecision[];
}

/** What a run's input says of where it runs, for the message when this host has none of its steps. */
type InputWithQueue = { hostQueue?: string; taskDefaults?: { hostQueue?: string } };

/** The workflows whose steps make up run `id`'s log, in order: the run itself, then its children (a roadmap's tasks). */
const workflowsOf = (id: string, history: RunHistory | undefined): string[] => [...new Set([id, ...(history?.children() ?? [])])];

/** Each workflow's transcripts in this host's store, each transcript once (a layer's children share its keys); the run's decisions with the first. */
async function readLog(store: DexStore, workflowIds: string[], decisions: GateDecision[] = []): Promise<WorkflowLog[]> {
  const seen = new Set<string>();
  const log: WorkflowLog[] = [];
  for (const workflowId of workflowIds) {
    const ids = (await store.listTranscripts(workflowKeyPrefix(workflowId))).filter((t) => !seen.has(t));
    ids.forEach((t) => seen.add(t));
    const transcripts: TranscriptLog[] = [];
    for (const t of ids) transcripts.push({ id: t, steps: await transcriptSteps(store, t) });
    // The report's head, up to its first blank line: what setup did, then the verify it picked.
    const [setup, ...head] = (await store.getArtifact(setupReportId(workflowId)))?.content.split('\n\n')[0].split('\n') ?? [];
    const verify = head.find((line) => line.startsWith('verify: '));
    const own = log.length === 0 && decisions.length ? { decisions } : {};
    log.push({ workflowId, ...(setup ? { setup } : {}), ...(verify ? { verify } : {}), transcripts, ...own });
  }
  return log;
}

/** The header of a workflow's decisions in the log. */
const decisionsHeader = (workflowId: string): string => `── ${workflowId}: decisions at gates`;

/** The log as text: each transcript under its id, each step a line. */
function renderLog(log: WorkflowLog[]): string {
  return log
    .flatMap((w) => [
      ...(w.setup ? [`── ${setupReportId(w.workflowId)}`, `  ${w.setup}`, ...(w.verify ? [`  ${w.verify}`] : [])] : []),
      ...w.transcripts.flatMap((t) => [`── ${t.id}`, ...t.steps.map(renderStep)]),
      ...(w.decisions?.length ? [decisionsHeader(w.workflowId), ...w.decisions.map(renderDecision)] : []),
    ])
    .join('\n');
}

/**
 * `dex log ID [--follow]`: the run's steps from this host's store: model turns, tool calls with
 * their arguments and results, verifies; a roadmap's tasks in order. `--follow` prints new steps
 * until the run ends.
 */
export async function logCommand(argv: string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, COMMAND_HELP.log.options);
  const id = onePositional(positionals, 'a run id', usageOf('log'));
  const settings = readSettings();
  const spec = settings.store;
  const conns = await connectSaying(settings, out.info);
  try {
    const run = await findRun(conns.client, id);
    // Its history holds its children (a roadmap's tasks) and the decisions people sent it.
    const history = () => RunHistory.of(run.handle);
    const none = async (location: string) => nothingHere(out, id, location, await RunHistory.of(run.handle));
    return await withExistingStore(
      spec,
      async (store) => {
        if (values.follow) return await follow(out, run.handle, store, id, history);
        const read = await history();
        const log = await readLog(store, workflowsOf(id, read), read.decisions());
        if (!log.some((w) => w.transcripts.length || w.setup || w.decisions)) return await none(store.location);
        out.result(renderLog(log), { id, runs: log });
        return 0;
      },
      none,
    );
  } finally {
    await conns.close();
  }
}

/** Prints steps as they come until the run ends (with --json: the whole log once it has ended). */
async function follow(out: Output, handle: WorkflowHandle, store: DexStore, id: string, history: () => Promise<RunHistory>): Promise<number> {
  const printed = new Set<string>();
  let header: string | undefined;
  for (;;) {
    // Whether it ended is read before its steps, so the last read holds every step it took.
    const ended = !(await isRunning(handle));
    const read = await history();
    const log = await readLog(store, workflowsOf(id, read), read.decisions());
    if (ended && out.json) {
      out.result('', { id, runs: log });
      return 0;
    }
    for (const w of log) {
      const setupKey = setupReportId(w.workflowId);
      if (w.setup && !printed.has(setupKey)) {
        if (!out.json) process.stdout.write(`── ${setupKey}\n  ${w.setup}\n${w.verify ? `  ${w.verify}\n` : ''}`);
        printed.add(setupKey);
        header = setupKey;
      }
    }
    for (const t of log.flatMap((w) => w.transcripts)) {
      for (const step of t.steps) {
        const key = stepKey(t.id, step);
        if (printed.has(key)) continue;
        // A tool still running is shown once its result is there, and the steps after it too.
        if (!stepSettled(step) && !ended) break;
        if (!out.json) {
          if (header !== t.id) process.stdout.write(`── ${t.id}\n`);
          process.stdout.write(renderStep(step) + '\n');
        }
        header = t.id;
        printed.add(key);
      }
    }
    const decisions = log[0]?.decisions ?? [];
    decisions.forEach((d, i) => {
      const key = `${id}#decision:${i}`;
      if (printed.has(key)) return;
      if (!out.json) process.stdout.write(`${header === decisionsHeader(id) ? '' : `${decisionsHeader(id)}\n`}${renderDecision(d)}\n`);
      header = decisionsHeader(id);
      printed.add(key);
    });
    if (ended) return 0;
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
  }
}

/** This host's store has nothing of the run: say where its steps are kept instead. */
function nothingHere(out: Output, id: string, location: string, history: RunHistory): number {
  const input = history.input<InputWithQueue>();
  const queue = input?.hostQueue ?? input?.taskDefaults?.hostQueue;
  const where = queue ? `; its steps are kept on the host whose worker polls ${queue}` : '';
  out.result(`no steps of ${id} in this host's store (${location})${where}`, { id, runs: [], store: location, hostQueue: queue });
  return 0;
}

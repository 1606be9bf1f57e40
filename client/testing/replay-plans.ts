/**
 * `dex replay-test` of a recorded layer or sheet (docs/testing-your-flows.md#layers-and-sheets): the
 * plan file run again on the time-skipping server with the cassette as the model. A layer's store
 * starts from what the recording read (its world) and its lookbacks count back from the
 * recording's clock, so the replay renders the prompts the recording did unless a template changed.
 * A sheet's task statements work on copies of their repositories, and a people script may answer
 * its gates and say what it must come to.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { InvalidInput } from '../../core/run/invalid-input';
import type { LayerInput } from '../../core/layer/layer-types';
import type { SheetResult } from '../../core/sheet/sheet-types';
import type { Output } from '../cli-context';
import { changedFiles } from '../render/replay-test';
import { layerDifferences, planSameLine, sheetDifferences } from '../render/replay-test-plans';
import { seedLayerWorld } from '../requests/layer-recording';
import { buildLayerInput } from '../requests/layer-request';
import type { PeopleScript, ScriptedAnswer } from '../requests/people-script';
import type { LayerOutcome, RecordedPlan, SheetOutcome } from '../requests/recorded-plans';
import { progressView } from '../run/progress-view';
import { readSettings } from '../settings';
import { unmetExpectations, type CheckedRun } from './expectations';
import { timeSkippingSettings } from './replay-recording';
import { runLayerOnHost, runSheetOnHost } from './plan-runs';
import { sheetReplay } from './replay-sheet';
import type { ScriptedRun } from './scripted-run';
import { startTimeSkippingHost } from './time-skipping-host';

/**
 * `dex replay-test FILE` of a layer or sheet recording: replays it on the time-skipping server and
 * compares; exit 0 when it ends the same (or, for a sheet with `--script`, as the script expects),
 * 1 naming each difference. `--repo` and `--dev-server` serve task and roadmap recordings only, and
 * `--script` serves no layer (exit 2).
 */
export async function replayPlanTest(
  file: string,
  recorded: RecordedPlan,
  values: { script?: string; repo?: string; 'dev-server'?: boolean },
  out: Output,
  script?: PeopleScript,
): Promise<number> {
  const option = values.repo !== undefined ? '--repo' : values['dev-server'] ? '--dev-server' : values.script !== undefined && recorded.kind === 'layer' ? '--script' : undefined;
  if (option) throw new InvalidInput(`${option} serves task, roadmap${option === '--script' ? ' and sheet' : ''} recordings; ${file} records a ${recorded.kind}`);
  const dexHome = join(mkdtempSync(join(tmpdir(), 'dex-replay-')), 'dex-home');
  let replay: PlanReplay;
  try {
    replay = planReplay(recorded, file, dexHome, script?.answers);
  } catch (err) {
    // Bad input leaves nothing behind.
    rmSync(dirname(dexHome), { recursive: true, force: true });
    throw err;
  }
  out.info(`replaying ${file}: ${recorded.kind} ${recorded.file} as ${recorded.workflowId}${replay.copies.length ? `, its tasks on copies: ${replay.copies.join(', ')}` : ''}`);
  const { run, outcome } = await replay.run(out);
  const files = (a: string, b: string) => replay.copies.map((copy) => changedFiles(copy, a, b)).find((f) => f.length) ?? [];
  const same = () =>
    recorded.kind === 'layer' ? layerDifferences(recorded, outcome as LayerOutcome, replay.layer) : sheetDifferences(recorded, outcome as SheetOutcome, files);
  const differ = script ? unmetExpectations(script.expect, checkedSheet(run, outcome as SheetOutcome), same) : same();
  const what = script ? `the script's expectations (${values.script})` : `the recording ${recorded.workflowId}`;
  const head = differ.length
    ? `${run.workflowId}: the replay differs from ${what}:`
    : `${run.workflowId}: the replay ends as ${what} ${script ? `expect: ${outcome.state}` : `did: ${planSameLine(outcome)}`}`;
  const times = `took ${duration(run.simulatedMs)} of simulated time in ${duration(run.wallMs)} wall time`;
  const copies = replay.copies.length ? [`replayed the tasks in ${replay.copies.join(', ')}`] : [];
  out.result([head, ...differ.map((d) => `  ${d}`), ...run.answered.map((a) => `  answered: ${a}`), times, ...copies].join('\n'), {
    same: differ.length === 0,
    differences: differ,
    workflowId: run.workflowId,
    recorded: recorded.end,
    replayed: outcome,
    simulatedMs: run.simulatedMs,
    wallMs: run.wallMs,
    answered: run.answered,
    ...(replay.copies.length ? { copies: replay.copies } : {}),
  });
  return differ.length ? 1 : 0;
}

/** A sheet's run in what a script's expectations read: its statements as its tasks, each with its status as state. */
function checkedSheet(run: ScriptedRun, outcome: SheetOutcome): CheckedRun {
  const tasks = outcome.statements.map((s) => ({ id: s.id, state: s.status, tree: s.tree ?? null }));
  const costUsd = (run.end.result as SheetResult | undefined)?.costUsd ?? run.status?.costUsd ?? 0;
  return { outcome: { state: outcome.state, tasks }, costUsd, prompts: run.prompts, unused: run.unused, ...(run.stuck ? { stuck: run.stuck } : {}) };
}

/** `ms` in the largest unit that reads well: `24h 0m`, `3.2s`. */
export function duration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.round(ms / 60_000);
  return minutes < 60 ? `${minutes}m` : `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

/** A checked replay of a layer or sheet, ready to run. */
interface PlanReplay {
  /** The layer's input as the replay reads it now (its templates' sha256 among it). */
  layer?: LayerInput;
  /** The copies of the repositories a sheet's task statements work on. */
  copies: string[];
  run(out: Output): Promise<{ run: ScriptedRun; outcome: LayerOutcome | SheetOutcome }>;
}

/**
 * The replay of `recorded`, its input checked now (InvalidInput before anything starts): the plan
 * file must still be there and read; a sheet's task statements work on copies of their
 * repositories (replay-sheet.ts), its gates answered by `script` when there is one.
 */
function planReplay(recorded: RecordedPlan, cassette: string, dexHome: string, script?: readonly ScriptedAnswer[]): PlanReplay {
  const settings = timeSkippingSettings(readSettings(), dexHome);
  const llm = `replay:${cassette}`;
  if (recorded.kind === 'layer') {
    const layer: LayerInput = { ...buildLayerInput(recorded.file, { llm }, settings), clock: recorded.clock };
    return {
      layer,
      copies: [],
      run: (out) =>
        onHost(dexHome, out, async (host) => {
          await seedLayerWorld(host.deps.store, recorded.world);
          return runLayerOnHost(host, recorded.workflowId, layer, progressView(out, Date.now()));
        }),
    };
  }
  const { input, answers, copies } = sheetReplay(recorded, llm, settings, script);
  return {
    copies,
    run: (out) => onHost(dexHome, out, (host) => runSheetOnHost(host, recorded.workflowId, input, answers, progressView(out, Date.now()))),
  };
}

/** Starts a time-skipping host in `dexHome`, runs `use` on it and stops it. */
async function onHost<T>(dexHome: string, out: Output, use: (host: Awaited<ReturnType<typeof startTimeSkippingHost>>) => Promise<T>): Promise<T> {
  out.info('starting the time-skipping test server and a worker (durable timers and deadlines pass at once)…');
  const host = await startTimeSkippingHost({ dexHome });
  try {
    return await use(host);
  } finally {
    await host.stop();
  }
}

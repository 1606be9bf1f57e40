/**
 * `dex replay-test` of a recorded layer or sheet (docs/testing-your-flows.md#layers-and-sheets): the
 * plan file run again on the time-skipping server with the cassette as the model. A layer's store
 * starts from what the recording read (its world) and its lookbacks count back from the
 * recording's clock, so the replay renders the prompts the recording did unless a template changed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { InvalidInput } from '../../core/run/invalid-input';
import type { LayerInput } from '../../core/layer/layer-types';
import type { Output } from '../cli-context';
import { layerDifferences, planSameLine, sheetDifferences } from '../render/replay-test-plans';
import { seedLayerWorld } from '../requests/layer-recording';
import { buildLayerInput } from '../requests/layer-request';
import type { ScriptedAnswer } from '../requests/people-script';
import type { LayerOutcome, RecordedPlan, SheetOutcome } from '../requests/recorded-plans';
import { buildSheetInput, planSheetFile } from '../requests/sheet-file';
import { progressView } from '../run/progress-view';
import { readSettings } from '../settings';
import { timeSkippingSettings } from './replay-recording';
import { runLayerOnHost, runSheetOnHost } from './plan-runs';
import type { ScriptedRun } from './scripted-run';
import { startTimeSkippingHost } from './time-skipping-host';

/**
 * `dex replay-test FILE` of a layer or sheet recording: replays it on the time-skipping server and
 * compares; exit 0 when it ends the same, 1 naming each difference. `--script`, `--repo` and
 * `--dev-server` serve task and roadmap recordings only (exit 2).
 */
export async function replayPlanTest(file: string, recorded: RecordedPlan, values: { script?: string; repo?: string; 'dev-server'?: boolean }, out: Output): Promise<number> {
  const option = values.script !== undefined ? '--script' : values.repo !== undefined ? '--repo' : values['dev-server'] ? '--dev-server' : undefined;
  if (option) throw new InvalidInput(`${option} serves task and roadmap recordings; ${file} records a ${recorded.kind}`);
  const dexHome = join(mkdtempSync(join(tmpdir(), 'dex-replay-')), 'dex-home');
  let replay: PlanReplay;
  try {
    replay = planReplay(recorded, file, dexHome);
  } catch (err) {
    // Bad input leaves nothing behind.
    rmSync(dirname(dexHome), { recursive: true, force: true });
    throw err;
  }
  out.info(`replaying ${file}: ${recorded.kind} ${recorded.file} as ${recorded.workflowId}`);
  const { run, outcome } = await replay.run(out);
  const differ =
    recorded.kind === 'layer' ? layerDifferences(recorded, outcome as LayerOutcome, replay.layer) : sheetDifferences(recorded, outcome as SheetOutcome);
  const head = differ.length
    ? `${run.workflowId}: the replay differs from the recording ${recorded.workflowId}:`
    : `${run.workflowId}: the replay ends as the recording ${recorded.workflowId} did: ${planSameLine(outcome)}`;
  const times = `took ${duration(run.simulatedMs)} of simulated time in ${duration(run.wallMs)} wall time`;
  out.result([head, ...differ.map((d) => `  ${d}`), times].join('\n'), {
    same: differ.length === 0,
    differences: differ,
    workflowId: run.workflowId,
    recorded: recorded.end,
    replayed: outcome,
    simulatedMs: run.simulatedMs,
    wallMs: run.wallMs,
  });
  return differ.length ? 1 : 0;
}

/** `ms` in the largest unit that reads well: `24h 0m`, `3.2s`. */
export function duration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.round(ms / 60_000);
  return minutes < 60 ? `${minutes}m` : `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

/** A checked replay of a layer or sheet, ready to run. */
export interface PlanReplay {
  /** The layer's input as the replay reads it now (its templates' sha256 among it). */
  layer?: LayerInput;
  run(out: Output): Promise<{ run: ScriptedRun; outcome: LayerOutcome | SheetOutcome }>;
}

/**
 * The replay of `recorded`, its input checked now (InvalidInput before anything starts): the
 * plan file must still be there and read, and a sheet must have no task statement (its
 * repositories would get the commits again).
 */
export function planReplay(recorded: RecordedPlan, cassette: string, dexHome: string): PlanReplay {
  const settings = timeSkippingSettings(readSettings(), dexHome);
  const llm = `replay:${cassette}`;
  if (recorded.kind === 'layer') {
    const layer: LayerInput = { ...buildLayerInput(recorded.file, { llm }, settings), clock: recorded.clock };
    return {
      layer,
      run: (out) =>
        onHost(dexHome, out, async (host) => {
          await seedLayerWorld(host.deps.store, recorded.world);
          return runLayerOnHost(host, recorded.workflowId, layer, progressView(out, Date.now()));
        }),
    };
  }
  const plan = planSheetFile(recorded.file);
  if (plan.statements.some((s) => s.doc.run === 'task' || s.doc.undo?.run === 'task')) {
    throw new InvalidInput(`${recorded.file}: a sheet with task statements cannot be replayed yet: their repositories would get the commits again`);
  }
  const input = buildSheetInput(recorded.file, plan, { confirm: recorded.confirm, llm }, settings);
  // The plan gate is answered as the person who recorded answered it.
  const answers: ScriptedAnswer[] = recorded.confirm
    ? [recorded.end.state === 'rejected' ? { action: 'reject', gate: 'plan', reason: 'rejected when recorded' } : { action: 'approve', gate: 'plan' }]
    : [];
  return {
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

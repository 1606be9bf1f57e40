/**
 * A layer or sheet run to its end on a time-skipping host, and how it ended: what `dex replay-test`
 * of a layer or sheet recording (replay-plans.ts) and `dex/testing`'s `runLayer` and `runSheet` share.
 */
import type { LayerInput } from '../../core/layer/layer-types';
import type { SheetInput } from '../../core/sheet/sheet-types';
import { PLAN_KINDS } from '../plan-kinds';
import { layerOutcomeOf } from '../requests/layer-recording';
import { sheetOutcomeOf } from '../requests/sheet-recording';
import { storeLayerTemplates } from '../requests/layer-templates';
import type { ScriptedAnswer } from '../requests/people-script';
import type { LayerOutcome, SheetOutcome } from '../requests/recorded-plans';
import type { ProgressView } from '../run/progress-view';
import { runScripted, type ScriptedRun } from './scripted-run';
import type { TimeSkippingHost } from './time-skipping-host';

/** Runs `layer` as `workflowId` on `host`, its templates put in the host's store first, as `dex layer` does. */
export async function runLayerOnHost(host: TimeSkippingHost, workflowId: string, layer: LayerInput, view?: ProgressView): Promise<{ run: ScriptedRun; outcome: LayerOutcome }> {
  await storeLayerTemplates(host.deps.store, layer.templates ?? {});
  const run = await runScripted(host, { workflowType: PLAN_KINDS.layer.workflowType, workflowId, args: [layer] }, [], view);
  return { run, outcome: await layerOutcomeOf(host.deps.store, run.workflowId, run.end) };
}

/** Runs the sheet `input` as `workflowId` on `host`, its `plan` gate answered from `answers`. */
export async function runSheetOnHost(
  host: TimeSkippingHost,
  workflowId: string,
  input: SheetInput,
  answers: readonly ScriptedAnswer[],
  view?: ProgressView,
): Promise<{ run: ScriptedRun; outcome: SheetOutcome }> {
  const run = await runScripted(host, { workflowType: PLAN_KINDS.sheet.workflowType, workflowId, args: [input] }, answers, view);
  return { run, outcome: sheetOutcomeOf(run.end, input) };
}

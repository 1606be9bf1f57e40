import { resolve } from 'node:path';
import { sheetWorkflowIdPrefix } from '../../core/run/ids';
import { describePlan } from '../../core/parsing/sheet';
import { onePositional, parseCommandArgs, type Output } from '../cli-context';
import { COMMAND_HELP, usageOf } from '../command-help';
import type * as DriveRun from '../run/drive-run';
import { PLAN_KINDS } from '../plan-kinds';
import { describeDrivenRun } from '../render/render-run-end';
import { sheetAbout } from '../run/run-about';
import { commandSettings } from '../run-queues';
import { buildSheetInput, planSheetFile } from '../requests/sheet-file';
import { recordedRepos, sheetOutcomeOf } from '../requests/sheet-recording';
import { writePlanSidecar } from '../requests/recorded-plans';

/** `dex sheet FILE`: checks and plans a sheet (tollgate 1), then runs it as a `sheetWorkflow` unless `--plan`. */
export async function sheetCommand(argv: string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, COMMAND_HELP.sheet.options);
  const file = onePositional(positionals, 'one sheet file', usageOf('sheet'));
  const plan = planSheetFile(file);
  if (values.plan) {
    const phases = plan.phases.map((phase) =>
      phase.map((i) => {
        const s = plan.statements[i];
        const target = s.target !== undefined ? { target: s.target } : {};
        return { index: s.index, id: s.id, ...target, depth: s.depth, produces: s.produces ?? null, consumes: s.consumes, span: s.span ?? null };
      }),
    );
    const { name, transaction, maxParallel, order, targets } = plan;
    out.result(describePlan(plan), { name, transaction, maxParallel, ...(targets ? { targets } : {}), order, phases });
    return 0;
  }
  const settings = commandSettings(values.detach);
  const input = buildSheetInput(file, plan, { confirm: values.confirm, llm: values.llm }, settings);
  // Loaded only once the input is known to be good: bad input answers without loading the SDK.
  const { driveRun, exitCodeFor } = require('../run/drive-run') as typeof DriveRun;
  // Where the task statements' repositories start from, for a replay to copy them there.
  const repos = input.llm?.kind === 'record' ? recordedRepos(input) : [];
  const run = await driveRun(
    { kind: 'sheet', idPrefix: sheetWorkflowIdPrefix(plan.name), args: [input], about: sheetAbout(input) },
    settings,
    out,
    { detach: values.detach },
  );
  // A recording followed to its end says how it ended, for `dex replay-test` (docs/interfaces.md#recording-a-run).
  if (input.llm?.kind === 'record' && run.end) {
    const { workflowId, end } = run;
    writePlanSidecar(input.llm.path, { version: 1, kind: 'sheet', file: resolve(file), workflowId, confirm: input.confirm, ...(repos.length ? { repos } : {}), end: sheetOutcomeOf(end, input) });
  }
  out.result(describeDrivenRun(PLAN_KINDS.sheet.workflowType, run), { workflowId: run.workflowId, ...run.end, webUi: run.webUi });
  return run.end ? exitCodeFor(run.end) : 0;
}

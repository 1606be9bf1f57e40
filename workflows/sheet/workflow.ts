import { setHandler } from '@temporalio/workflow';
import { dependentsOf } from '../../core/roadmap/dependency-phases';
import { substituteAction } from '../../core/sheet/sheet-symbols';
import type { SheetInput, SheetResult } from '../../core/sheet/sheet-types';
import { statusQuery } from '../../core/run/definitions';
import { inLanes } from '../run/lanes';
import { RunControl } from '../run/run-control';
import { runAction } from './action';
import { sheetActivities } from './activities';
import { SheetChain } from './chain';
import { SheetProgress } from './progress';
import { FAILURE, nonRetryable, type FailureType } from '../../core/run/failure-types';

/** The failure type a sheet that did not complete ends with, by its state. */
const FAILURE_TYPES: Partial<Record<SheetResult['state'], FailureType>> = {
  failed: FAILURE.SheetFailed,
  rejected: FAILURE.SheetRejected,
  rolled_back: FAILURE.SheetRolledBack,
};

/**
 * A sheet (docs/sheets.md): optionally waits at the `plan` gate, then runs the
 * planned phases in order, the statements of a phase concurrently (at most `maxParallel`),
 * substituting the values earlier statements produced. A failure skips everything downstream;
 * in a transaction it stops the sheet and undoes every completed statement, newest first.
 * When its history is nearly full, the run continues as new (docs/sheets.md#continue-as-new).
 */
export async function sheetWorkflow(input: SheetInput): Promise<SheetResult> {
  const acts = sheetActivities(input.hostQueue);
  const control: RunControl = new RunControl(async () => progress.ledger.publish());
  const progress = new SheetProgress(input, control);
  setHandler(statusQuery, () => progress.status());
  progress.ledger.attach(() => progress.status(), input.name);
  const chain = new SheetChain(input, acts);
  await chain.takeOver(progress, control);

  if (input.confirm && !chain.carried) {
    const decision = await control.waitAt('plan');
    if (decision.action === 'reject') {
      const message = `the plan was rejected: ${decision.reason}`;
      input.statements.forEach((s) => progress.skip(s.index, { code: 'rejected', message }));
      return finish('rejected', message);
    }
  }

  for (let n = chain.firstPhase; n < input.phases.length; n++) {
    if (input.transaction && progress.anyFailed) break;
    const pending = input.phases[n].filter((i) => progress.isPending(i));
    progress.enterPhase(n);
    const started = await inLanes(pending, input.maxParallel, (i) => runStatement(i), (running) => chain.full(running, progress));
    // The history is full: the statements left go to the next run of the chain, from this phase on.
    if (started.length < pending.length) return chain.handOver(progress, control, n);
  }

  const failed = progress.result().statements.filter((r) => r.status === 'failed');
  if (failed.length === 0) return finish('completed');
  const firstFailure = `statement "${failed[0].id}" failed: ${failed[0].error?.message}`;
  if (!input.transaction) return finish('failed', firstFailure);

  // A transaction: nothing more starts, and what completed is undone, newest first.
  const aborted = { code: 'aborted', message: `the transaction stopped after "${failed[0].id}" failed`, blocked_by: failed[0].id };
  for (const s of input.statements) progress.skip(s.index, aborted);
  // An undo that fails does not stop the others: as much as can be undone is. Those an earlier run
  // of the chain undid are not undone again; a full history hands the rest to the next run.
  for (const i of [...progress.completed].reverse()) {
    const s = input.statements[i];
    if (!s.undo || progress.wasUndone(i)) continue;
    if (chain.full(0, progress)) return chain.handOver(progress, control, input.phases.length);
    await control.unpaused();
    progress.undoing(i);
    const outcome = await runAction(acts, input, s.id, 'undo', substituteAction(s.undo, progress.values));
    progress.ledger.spend(outcome.tokens, outcome.costUsd);
    progress.undone(i, !outcome.error, outcome.error?.message);
  }
  const left = progress.undosFailed();
  // Never rolled_back while an effect remains: the error names what is left (docs/sheets.md#transactions).
  if (left.length) return finish('failed', `${firstFailure}; the rollback is incomplete, the effects of these statements remain: ${left.join(', ')}`);
  return finish('rolled_back', `${firstFailure}; rolled back`);

  async function runStatement(i: number): Promise<void> {
    // In a transaction, a failure elsewhere in this phase stops what has not started yet.
    if (input.transaction && progress.anyFailed) return;
    await control.unpaused();
    const s = input.statements[i];
    progress.start(i);
    const outcome = await runAction(acts, input, s.id, 'do', substituteAction(s.action, progress.values));
    progress.ledger.spend(outcome.tokens, outcome.costUsd);
    if (outcome.error) {
      progress.fail(i, outcome.error);
      for (const id of dependentsOf(input.statements, s.id)) {
        const blocked = input.statements.find((d) => d.id === id)!;
        progress.skip(blocked.index, { code: 'blocked', message: `blocked: statement "${s.id}" failed`, blocked_by: s.id });
      }
      return;
    }
    progress.succeed(i, outcome.value ?? '');
  }

  function finish(state: SheetResult['state'], error?: string): SheetResult {
    progress.ledger.end(state, error);
    const result = progress.result();
    const type = FAILURE_TYPES[state];
    // A sheet that did not complete ends failed in Temporal too; its result rides along as the failure's detail.
    if (type) throw nonRetryable(type, error ?? state, [result]);
    return result;
  }
}

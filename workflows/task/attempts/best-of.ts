import { CancellationScope, condition, isCancellation, setHandler, workflowInfo } from '@temporalio/workflow';
import { repoNameOf } from '../../../core/run/ids';
import { statusQuery } from '../../../core/run/definitions';
import { FAILURE, nonRetryable } from '../../../core/run/failure-types';
import { DEFAULT_WEIGHTS, describeChoice, rankAttempts } from '../../../core/task/attempt-score';
import type { AttemptChoice, AttemptRow } from '../../../core/task/attempts';
import type { TaskInput, TaskResult } from '../../../core/task/task-types';
import { RunControl } from '../../run/run-control';
import { RunLedger } from '../../run/run-ledger';
import { ParentLink } from '../parent-link';
import { AttemptGrants } from './attempt-grants';
import { AttemptRuns } from './attempt-runs';

/**
 * A best-of-N task (docs/attempts.md): its attempts run at once as child tasks, each on its own
 * branch, under one budget; when they have ended (or the first passed, with `stopWhen:
 * first-pass`, or the time limit came, or the budget ran out) the passing attempt with the best
 * evidence is chosen — by a person at the `choose` gate when the config asks it or the budget
 * was cut — and the task ends with that attempt's branch, which a roadmap then lands. The others'
 * branches stay until `dex clean`.
 */
export async function bestOfAttempts(input: TaskInput): Promise<TaskResult> {
  const config = input.attempts!;
  const weights = { ...DEFAULT_WEIGHTS, ...config.weights };
  let chosen: AttemptChoice | undefined;
  const control: RunControl = new RunControl(async () => {
    ledger.publish();
    await parent.tell();
  });
  const runs = new AttemptRuns(input, (step) => (step ? ledger.step(step) : ledger.publish()), (taskId, spentUsd) => grants.settle(taskId, spentUsd));
  const ledger = new RunLedger('task', control, { spentBy: () => runs.spent() });
  ledger.budget = input.budget;
  const ranked = () => rankAttempts(runs.rows, weights);
  const chosenRow = () => (chosen ? runs.rows.find((r) => r.name === chosen!.name) : undefined);
  const status = () => {
    const row = chosenRow();
    return ledger.status({ taskId: input.taskId }, { attempts: ranked().rows, ...(chosen ? { chosen } : {}), ...(row?.branch ? { branch: row.branch } : {}), ...(row?.commit ? { commit: row.commit } : {}) });
  };
  const parent = new ParentLink(input.taskId, status, input.holdSpendingMs);
  setHandler(statusQuery, status);
  ledger.attach(status, repoNameOf(input.repoPath));
  control.vetChoice = (choice) => {
    if (!ranked().rows.some((r) => r.name === choice && r.state === 'completed')) {
      throw new Error(`no completed attempt ${choice}: ${runs.rows.map((r) => `${r.name} ${r.state}`).join(', ')}`);
    }
  };
  const grants = new AttemptGrants(input, (taskId) => runs.rowOfTask(taskId)?.workflowId, () => parent.carry());

  const end = async (state: TaskResult['state'], error: string): Promise<never> => {
    ledger.end(state, error);
    await parent.tell();
    const { tokens, costUsd, turns } = ledger.spent();
    const result: TaskResult = { taskId: input.taskId, state, branch: '', turns, tokens, costUsd, verifyPassed: false, error, attempts: ranked().rows };
    throw nonRetryable(state === 'rejected' ? FAILURE.TaskRejected : FAILURE.TaskFailed, error, [result]);
  };

  try {
    if (!(await grants.reserveUpFront())) return await end('budget_exceeded', `the roadmap did not grant the ${config.count} attempts' budget`);
    await runs.startAll(grants.limited);
    ledger.step(`attempts · ${config.count} started${config.stopWhen === 'first-pass' ? ', the first to pass is chosen' : ''}`);
    const stop = await watch(input, runs, grants, ranked);
    const { rows, best } = ranked();
    if (!best) {
      const why = rows.map((r) => `${r.name} ${r.state}${r.note ? `: ${r.note}` : ''}`).join('; ');
      if (stop === 'budget') return await end('budget_exceeded', `the budget ran out before any attempt passed (${why})`);
      return await end('failed', `none of the ${rows.length} attempts passed: ${why}`);
    }
    chosen = { name: best.name, by: 'evidence', reason: describeChoice(rows, best) };
    ledger.step(`attempts · ${chosen.reason}`);
    if (config.choose === 'person' || stop === 'budget') {
      const picked = await chooseAtGate(control, input, ranked, chosen, stop === 'budget' ? 'the budget ran out; ' : '');
      if ('rejected' in picked) return await end('rejected', `rejected at the choose gate: ${picked.rejected}`);
      chosen = picked;
      ledger.step(`choose · ${chosen.name} by ${chosen.by}`);
    }
    const result = resultOf(input, ledger, runs, chosen, ranked().rows);
    ledger.end('completed');
    await parent.tell();
    return result;
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(async () => {
        await runs.cancelRunning('stopped: the task was cancelled');
        ledger.end('cancelled');
        await parent.tell();
      });
    }
    throw err;
  }
}

/** Why the attempts stopped: all ended, the first passed (`first-pass`), the time limit, or the budget. */
type Stop = 'ended' | 'first-pass' | 'time' | 'budget';

/** What a cancelled attempt's row says of why. */
const STOPPED_FOR: Record<Exclude<Stop, 'ended'>, string> = {
  'first-pass': 'stopped: another attempt passed first',
  time: 'stopped: the time limit came',
  budget: 'stopped: the budget ran out',
};

/** Serves grants and waits until every attempt has ended, cancelling the rest when one passed first, the time is up or the budget is cut. */
async function watch(input: TaskInput, runs: AttemptRuns, grants: AttemptGrants, ranked: () => { best?: AttemptRow }): Promise<Stop> {
  const config = input.attempts!;
  const deadline = config.timeLimitMs !== undefined ? Date.now() + config.timeLimitMs : undefined;
  let stop: Stop = 'ended';
  const passedFirst = () => config.stopWhen === 'first-pass' && ranked().best !== undefined;
  for (;;) {
    await grants.serve();
    if (runs.allEnded()) return stop;
    if (stop === 'ended') {
      const why: Stop | undefined = grants.cut ? 'budget' : passedFirst() ? 'first-pass' : deadline !== undefined && Date.now() >= deadline ? 'time' : undefined;
      if (why) {
        stop = why;
        await runs.cancelRunning(STOPPED_FOR[why]);
      }
    }
    const wake = () => runs.allEnded() || grants.anyPending || (stop === 'ended' && passedFirst());
    if (stop === 'ended' && deadline !== undefined) await condition(wake, Math.max(1, deadline - Date.now()));
    else await condition(wake);
  }
}

/**
 * The `choose` gate: approving lands the attempt the evidence chose, or the one the decision's
 * `choice` names (`dex choose ID B`, checked by the update's validator; a signal naming no
 * completed attempt is answered by waiting again).
 */
async function chooseAtGate(control: RunControl, input: TaskInput, ranked: () => { rows: AttemptRow[] }, proposed: AttemptChoice, before: string): Promise<AttemptChoice | { rejected: string }> {
  let note = '';
  for (;;) {
    const decision = await control.waitAt('choose', {}, {
      taskId: input.taskId,
      reason: `${note}${before}${proposed.reason}. Approve to land ${proposed.name}, or choose another: dex choose ${workflowInfo().workflowId} <attempt>`,
    });
    if (decision.action === 'reject') return { rejected: decision.reason };
    const { rows } = ranked();
    const row = rows.find((r) => r.name === (decision.choice ?? proposed.name) && r.state === 'completed');
    if (!row) {
      note = `no completed attempt ${decision.choice}; `;
      continue;
    }
    return { name: row.name, by: decision.by || 'a person', reason: row.name === proposed.name ? proposed.reason : describeChoice(rows, row) };
  }
}

/** The task's result: the chosen attempt's branch, commit and what it showed, with every attempt's row and the spending of all. */
function resultOf(input: TaskInput, ledger: RunLedger, runs: AttemptRuns, chosen: AttemptChoice, rows: AttemptRow[]): TaskResult {
  const picked = runs.results.get(chosen.name)!;
  const { tokens, costUsd, turns } = ledger.spent();
  const { evidence: _own, attempt: _of, ...shown } = picked as TaskResult & { attempt?: unknown };
  return { ...shown, taskId: input.taskId, state: 'completed', tokens, costUsd, turns, verifyPassed: true, attempts: rows, chosen };
}

/**
 * What a scripted replay is checked against (docs/testing-your-flows.md#scripted-people): the
 * script's `expect`, and what its answers were not used for. One line per difference; none: it passed.
 */
import type { Expectations, ScriptedAnswer } from '../requests/people-script';
import type { RunOutcome } from '../requests/replay-test-record';
import { answerLine } from './scripted-run';
import { formatUsd } from '../../core/text/spending';
import { plural } from '../../core/text/plural';

/** How the scripted run went, in what expectations read: a sheet's statements are its `tasks`, each with its status as state. */
export interface CheckedRun {
  outcome: Pick<RunOutcome, 'state' | 'tasks'>;
  costUsd: number;
  prompts: string[];
  unused: readonly ScriptedAnswer[];
  stuck?: string;
}

/**
 * The differences between `run` and `expect`; `sameAsRecorded` gives those from the recording
 * (the comparison `dex replay-test` makes without a script).
 */
export function unmetExpectations(expect: Expectations, run: CheckedRun, sameAsRecorded: () => string[] = () => []): string[] {
  const out: string[] = [];
  if (run.stuck) out.push(run.stuck);
  const { outcome } = run;
  if (expect.state !== undefined && outcome.state !== expect.state) out.push(`state: ${outcome.state}, expected ${expect.state}`);
  for (const [id, state] of Object.entries(expect.tasks ?? {})) {
    const task = outcome.tasks.find((t) => t.id === id);
    if (!task) out.push(`task ${id}: not in the run, expected ${state}`);
    else if (task.state !== state) out.push(`task ${id}: state ${task.state}, expected ${state}`);
  }
  if (expect.maxCostUsd !== undefined && run.costUsd > expect.maxCostUsd) {
    out.push(`cost: ${formatUsd(run.costUsd)}, expected at most ${formatUsd(expect.maxCostUsd)}`);
  }
  for (const text of expect.promptsContain ?? []) {
    if (!run.prompts.some((p) => p.includes(text))) out.push(`no prompt contains ${JSON.stringify(text)} (${plural(run.prompts.length, 'prompt')} sent)`);
  }
  if (expect.sameAsRecorded) out.push(...sameAsRecorded());
  for (const answer of run.unused) if (answer.action !== 'wait') out.push(`the script's answer "${answerLine(answer)}" was never asked for`);
  return out;
}

/**
 * The `runSheetCommand` activity: a sheet's shell statement (or undo). Its trimmed stdout is the
 * statement's value; the full output is stored as an artifact, and only the value (capped) and
 * a short error go into workflow history.
 */
import { join } from 'node:path';
import { sheetCommandOutcomeId, sheetCommandOutputId } from '../../core/run/ids';
import { VALUE_LIMIT_CHARS, type ActionOutcome } from '../../core/sheet/sheet-types';
import type { ActivityDeps } from '../deps';
import { runWithStderrApart } from '../../host/shell/stderr-apart';

/** Output kept of a statement's stdout (stored as an artifact; the value is at most VALUE_LIMIT_CHARS of it). */
const STORED_OUTPUT_BYTES = 1_000_000;
/** How much of stderr an error message quotes. */
const ERROR_TAIL_CHARS = 500;

/** Input of `runSheetCommand`. */
interface SheetCommandInput {
  /** Idempotency key: `<workflowId>/<statementId>/<do|undo>`. */
  key: string;
  command: string;
  cwd: string;
  timeoutMs: number;
}

/** Builds the sheet command activity over the host's dependencies. */
export const createSheetCommandActivities = (deps: ActivityDeps) => ({
  /** Runs a shell statement; a non-zero exit is a failed outcome, not an activity failure (no retry). */
  async runSheetCommand(input: SheetCommandInput): Promise<ActionOutcome> {
    const { store } = deps;
    // A retry after the command finished (the report was lost) must not run it twice.
    const done = await store.getArtifact(sheetCommandOutcomeId(input.key));
    if (done) return JSON.parse(done.content) as ActionOutcome;

    // stdout alone is the value; stderr is kept apart so warnings never end up in a symbol.
    const { result, stderr } = await runWithStderrApart({
      command: input.command,
      cwd: input.cwd,
      dir: join(deps.dexHome, 'sheets'),
      key: input.key,
      timeoutMs: input.timeoutMs,
      outputLimitBytes: STORED_OUTPUT_BYTES,
    });
    await store.putArtifact(sheetCommandOutputId(input.key), 'sheet-output', `${result.output}${stderr ? `\n--- stderr ---\n${stderr}` : ''}`);

    const value = result.output.trim();
    const tail = (stderr.trim() || value).slice(-ERROR_TAIL_CHARS);
    let outcome: ActionOutcome;
    if (result.timedOut) {
      outcome = { error: { code: 'timeout', message: `timed out after ${input.timeoutMs} ms${tail ? `: ${tail}` : ''}` } };
    } else if (result.exitCode !== 0) {
      const how = result.exitCode === null ? `killed by ${result.killedBy}` : `exit code ${result.exitCode}`;
      outcome = { error: { code: 'exit_code', message: `${how}${tail ? `: ${tail}` : ''}` } };
    } else if (value.length > VALUE_LIMIT_CHARS || result.omittedBytes > 0) {
      outcome = {
        error: {
          code: 'value_too_large',
          message: `stdout is over ${VALUE_LIMIT_CHARS} characters; the full output is artifact ${input.key}/output`,
        },
      };
    } else {
      outcome = { value };
    }
    await store.putArtifact(sheetCommandOutcomeId(input.key), 'sheet-outcome', JSON.stringify(outcome));
    return outcome;
  },
});

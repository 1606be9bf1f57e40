import {
  ApplicationFailure,
  ChildWorkflowFailure,
  executeChild,
  isCancellation,
  workflowInfo,
} from '@temporalio/workflow';
import { VALUE_LIMIT_CHARS, type ActionOutcome, type SheetInput, type StatementAction } from '../../core/sheet/sheet-types';
import type { TaskResult } from '../../core/task/task-types';
import type { SheetActivities } from './activities';
import { taskWorkflow } from '../task/workflow';
import { innermostMessage } from '../../core/run/failure-message';
import { sheetStepKey, sheetTaskWorkflowId } from '../../core/run/ids';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import { SHORT_WORKFLOW_TASK_TIMEOUT } from '../../core/run/definitions';
import { SUMMARY_BYTES, clipText } from '../../core/limits/server-limits';

/**
 * Runs one action (references already substituted) of statement `statementId`; `step` is `do` or
 * `undo`. A failure is an outcome; only cancellation is thrown.
 */
export async function runAction(
  acts: SheetActivities,
  input: SheetInput,
  statementId: string,
  step: 'do' | 'undo',
  action: StatementAction,
): Promise<ActionOutcome> {
  const { workflowId } = workflowInfo();
  const key = sheetStepKey(workflowId, statementId, step);
  try {
    switch (action.run) {
      case 'shell':
        const summary = `${statementId} · ${step === 'undo' ? 'undo · ' : ''}${action.command.replace(/\s+/g, ' ').slice(0, 80)}`;
        return await acts.runSheetCommand({ key, command: action.command, cwd: input.cwd, timeoutMs: input.commandTimeoutMs }, summary);
      case 'llm': {
        if (!input.llm) throw nonRetryable(FAILURE.NoModel, 'the sheet was planned without --llm');
        const answer = await acts.answerPrompt({
          transcriptId: key,
          statementId,
          prompt: action.prompt,
          model: action.model,
          maxTokens: action.maxTokens,
          llm: input.llm,
          cassetteScope: workflowId,
        }, `${statementId} · model${action.model ? ` ${action.model}` : ''}`);
        const spent = { tokens: answer.tokens, costUsd: answer.costUsd };
        if (answer.text.length > VALUE_LIMIT_CHARS) {
          return { ...spent, error: { code: 'value_too_large', message: `the reply is over ${VALUE_LIMIT_CHARS} characters; it is stored as transcript ${key}` } };
        }
        return { ...spent, value: answer.text };
      }
      case 'task': {
        const staticSummary = clipText(`statement ${statementId}${step === 'undo' ? ' (undo)' : ''}: ${action.task.title}`, SUMMARY_BYTES);
        const result = await executeChild(taskWorkflow, { workflowId: sheetTaskWorkflowId(workflowId, statementId, step), staticSummary, args: [action.task], workflowTaskTimeout: SHORT_WORKFLOW_TASK_TIMEOUT });
        return { value: result.commit ?? '', tokens: result.tokens, costUsd: result.costUsd };
      }
    }
  } catch (err) {
    if (isCancellation(err)) throw err;
    if (err instanceof ChildWorkflowFailure) {
      const cause = err.cause;
      const task = cause instanceof ApplicationFailure ? (cause.details?.[0] as TaskResult | undefined) : undefined;
      return { error: { code: 'task_failed', message: innermostMessage(err) }, tokens: task?.tokens, costUsd: task?.costUsd };
    }
    const code = action.run === 'llm' ? 'model_error' : 'activity_failed';
    return { error: { code, message: innermostMessage(err) } };
  }
}

import { Context } from '@temporalio/activity';
import type { ActivityDeps } from '../deps';
import { inToolSpan } from '../../tracing/activity-spans';
import { fingerprintAfter, runStoredTool, type ToolCallInput, type ToolCallResult } from './run-tool';

/** Input of the `runTurnTools` activity: every tool call of one assistant message, in the order the model wrote them. */
export interface TurnToolsInput extends Omit<ToolCallInput, 'toolUseId'> {
  toolUseIds: string[];
}

/** Output of the `runTurnTools` activity; the full results stay in the store. */
interface TurnToolsResult {
  results: ToolCallResult[];
  /** The worktree's state after the turn's tools, when one of them may have changed it. */
  fingerprint?: string;
}

/**
 * Runs the tool calls `toolUseIds` of one assistant message in order, each in a trace span of its
 * own and stored as it finishes (a call with a stored result is not run again); heartbeats before
 * each. The one loop of `runTurnTools` and of a model call's reads (activities/model/reads-in-turn.ts).
 */
export async function runCallsInOrder(deps: ActivityDeps, call: Omit<ToolCallInput, 'toolUseId'>, toolUseIds: string[]): Promise<ToolCallResult[]> {
  const ctx = Context.current();
  const results: ToolCallResult[] = [];
  for (const [index, toolUseId] of toolUseIds.entries()) {
    ctx.heartbeat({ tool: index + 1, of: toolUseIds.length });
    results.push(await inToolSpan(toolUseId, () => runStoredTool(deps, { ...call, toolUseId })));
  }
  return results;
}

/**
 * The tool calls of one turn as one activity (docs/performance.md#tool-calls-of-one-turn): one
 * dispatch and one workflow task for the turn instead of one per call. Each result is stored as its
 * tool finishes, so a retry after a crash runs only the calls that had not finished; a command is
 * never run twice. It heartbeats before each call and while a command runs.
 */
export const createTurnToolActivities = (deps: ActivityDeps) => ({
  async runTurnTools(input: TurnToolsInput): Promise<TurnToolsResult> {
    const { toolUseIds, ...call } = input;
    const results = await runCallsInOrder(deps, call, toolUseIds);
    const fingerprint = await fingerprintAfter(results.map((r) => r.name), input.worktreePath);
    return fingerprint === undefined ? { results } : { results, fingerprint };
  },
});

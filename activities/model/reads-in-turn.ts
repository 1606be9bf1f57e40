import { Context } from '@temporalio/activity';
import type { ActivityDeps } from '../deps';
import { runStoredTool, type ToolCallInput } from '../tools/run-tool';
import { inToolSpan } from '../../tracing/activity-spans';

/** Where a model call may run its reply's reads at once: the worktree and the tool limits (reads need no sandbox). */
export type ReadsPlace = Pick<ToolCallInput, 'worktreePath' | 'limits'>;

/** Tools that only read the worktree and are quick: a reply asking for these alone has them run by its own model call. */
const QUICK_READS = new Set(['read_file', 'list_files']);

/**
 * Runs a reply's tool calls inside the model call's activity when every one of them is a quick
 * read (docs/performance.md#tool-calls-of-one-turn): a reading turn is then one activity, not
 * two. Each result is stored as it is read, as `runTurnTools` stores them, so a retry reads only
 * what is missing. Returns whether it ran them; a reply with any other call leaves them all to
 * `runTurnTools`.
 */
export async function runReadsOf(
  deps: ActivityDeps,
  place: ReadsPlace | undefined,
  reply: { transcriptId: string; seq: number; toolUses: { id: string; name: string }[] },
): Promise<boolean> {
  if (!place || reply.toolUses.length === 0 || !reply.toolUses.every((u) => QUICK_READS.has(u.name))) return false;
  const ctx = Context.current();
  for (const use of reply.toolUses) {
    ctx.heartbeat();
    await inToolSpan(use.id, () => runStoredTool(deps, { ...place, transcriptId: reply.transcriptId, assistantSeq: reply.seq, toolUseId: use.id }));
  }
  return true;
}

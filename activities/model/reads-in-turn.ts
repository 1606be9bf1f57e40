import type { ActivityDeps } from '../deps';
import { QUICK_READS, type ToolCallInput } from '../tools/run-tool';
import { runCallsInOrder } from '../tools/run-turn-tools';

/** Where a model call may run its reply's reads at once: the worktree and the tool limits (reads need no sandbox). */
export type ReadsPlace = Pick<ToolCallInput, 'worktreePath' | 'limits'>;

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
  await runCallsInOrder(deps, { ...place, transcriptId: reply.transcriptId, assistantSeq: reply.seq }, reply.toolUses.map((u) => u.id));
  return true;
}

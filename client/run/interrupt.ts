import type { WorkflowHandle } from '@temporalio/client';

/** The signals a person or a terminal sends a foreground command to stop it. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * What stopping a command that serves its own run does (docs/interfaces.md#the-dex-command): the
 * run has a queue of its own that nothing else polls, so leaving it would strand it. The first
 * SIGINT, SIGTERM or SIGHUP cancels the run, and the command's worker carries the cancellation
 * out (the worktree rolled back) before the command exits; a second one exits at once, saying
 * what it leaves. Returns the function that removes the handlers.
 */
export function cancelOnInterrupt(handle: WorkflowHandle, say: (line: string) => void): () => void {
  let stops = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    stops++;
    if (stops === 1) {
      say(`${signal}: cancelling ${handle.workflowId} (nothing but this command serves it); interrupt again to leave it as it is`);
      handle.cancel().catch((err: unknown) => say(`could not cancel ${handle.workflowId}: ${err instanceof Error ? err.message : String(err)}`));
      return;
    }
    say(`${signal}: left ${handle.workflowId} unserved on this command's own queue; end it with \`temporal workflow terminate --workflow-id ${handle.workflowId}\` (its worktree, if any, stays under DEX_HOME/worktrees)`);
    process.exit(130);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  return () => {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  };
}

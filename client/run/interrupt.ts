import type { WorkflowHandle } from '@temporalio/client';

/**
 * What stopping a command that serves its own run does (docs/architecture.md#who-serves-a-run).
 * Ctrl-C (SIGINT) is a person at the terminal asking to stop: the first one cancels the run, and
 * the command's worker carries the cancellation out (the worktree rolled back) before it exits; a
 * second one leaves the run as it is. SIGTERM and SIGHUP (a `kill`, a closed terminal, a shutdown)
 * leave the run at once: it is durable, stays legible through the workflow host, and goes on when
 * a `dex worker` with the same key serves its owner's queue. Returns the function that removes the handlers.
 */
export function stopOnSignals(handle: WorkflowHandle, ownerQueue: string, say: (line: string) => void): () => void {
  let interrupts = 0;
  const leave = (signal: NodeJS.Signals): void => {
    say(
      `${signal}: left ${handle.workflowId} as it is; it goes on once a worker serves ${ownerQueue}: run \`dex worker\` with this ` +
        `command's environment (the same key and DEX_HOME), or \`dex cancel ${handle.workflowId}\` to end it`,
    );
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  const onInterrupt = (): void => {
    if (++interrupts > 1) return leave('SIGINT');
    say(`SIGINT: cancelling ${handle.workflowId}; interrupt again to leave it as it is`);
    handle.cancel().catch((err: unknown) => say(`could not cancel ${handle.workflowId}: ${err instanceof Error ? err.message : String(err)}`));
  };
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', leave);
  process.on('SIGHUP', leave);
  return () => {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', leave);
    process.off('SIGHUP', leave);
  };
}

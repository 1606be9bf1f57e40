// What `dex webhook` does for GitHub's check_run and status events (client/webhook/), for tests against the
// fake forge: each check run (or commit status) that completes signals the run with its commit, so a wait for CI wakes at once.
import type { WorkflowHandle } from '@temporalio/client';
import { ciChangedSignal } from '../../../core/run/definitions';
import type { FakeForge } from './fake-forge-types';

/** Signals `handle` once for each check run of `forge` that completes; returns the stop. */
export function webhook(forge: FakeForge, handle: WorkflowHandle): () => void {
  // By completion, not id: a check run re-run in place completes again under its id (GitHub delivers check_run completed again).
  const told = new Set<string>();
  const timer = setInterval(() => {
    for (const run of forge.ci.runs) {
      const completion = `${run.id}@${run.completedAt}`;
      if (run.status !== 'completed' || told.has(completion)) continue;
      told.add(completion);
      handle.signal(ciChangedSignal, { owner: forge.owner, repo: forge.repo, sha: run.headSha }).catch(() => {});
    }
  }, 200);
  return () => clearInterval(timer);
}

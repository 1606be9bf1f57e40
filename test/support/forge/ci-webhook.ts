// What `dex webhook` does for GitHub's check_run events (client/webhook/), for tests against the fake
// forge: each check run that completes signals the run with its commit, so a wait for CI wakes at once.
import type { WorkflowHandle } from '@temporalio/client';
import { ciChangedSignal } from '../../../core/run/definitions';
import type { FakeForge } from './fake-forge-types';

/** Signals `handle` once for each check run of `forge` that completes; returns the stop. */
export function webhook(forge: FakeForge, handle: WorkflowHandle): () => void {
  const told = new Set<number>();
  const timer = setInterval(() => {
    for (const run of forge.ci.runs) {
      if (run.status !== 'completed' || told.has(run.id)) continue;
      told.add(run.id);
      handle.signal(ciChangedSignal, { owner: forge.owner, repo: forge.repo, sha: run.headSha }).catch(() => {});
    }
  }, 200);
  return () => clearInterval(timer);
}

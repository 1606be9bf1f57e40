/**
 * What a recorded landing through pull requests asked its forge and what the forge answered
 * (docs/landing-through-prs.md#replaying-a-landing): read from the roadmap's history when the
 * recording ends and kept in the sidecar, so `dex replay-test` answers the same on the
 * time-skipping server without the forge (client/testing/replayed-forge.ts). The forge token is
 * in none of it: no forge activity takes it. A check log is kept as the store holds it: bounded
 * and redacted.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { CheckLog, ForgeActivities, PullRequestLanding } from '../../core/roadmap/pull-request-types';
import type { LandConfig } from '../../core/roadmap/roadmap-types';
import type { DexStore } from '../../store/dex-store';
import { RunHistory } from '../run-history';

type ForgeActivity = keyof ForgeActivities;

/** Every forge activity a landing calls (core/roadmap/pull-request-types.ts). */
const FORGE_ACTIVITIES: ReadonlySet<string> = new Set<ForgeActivity>(['openPullRequest', 'readChecks', 'rerunCheck', 'readCheckLog', 'mergePullRequest', 'deletePullBranch']);

/** One forge activity the landing called. */
export interface RecordedForgeCall {
  activity: ForgeActivity;
  /** When the roadmap scheduled it: ms after the run's first start, on the server's clock. */
  atMs: number;
  /** Its input without `target` (the landing names it once). */
  input: Record<string, unknown>;
  result?: unknown;
  /** Its last attempt's failure, when it failed. */
  failure?: string;
}

/** The sidecar's `forge`: the landing the run was given, the forge's answers, the check logs read. */
export interface RecordedForge {
  /** The remote dex pushed the task branches to (`land.remote`) and `land.pr` as the run had it. */
  remote: string;
  landing: PullRequestLanding;
  calls: RecordedForgeCall[];
  /** Each check log the landing read, by the reference its readCheckLog answered. */
  logs: Record<string, string>;
}

/** The forge calls of the roadmap `handle` names, started with `land`, when it landed through pull requests; undefined otherwise (no history read). */
export async function recordForge(handle: WorkflowHandle, land: LandConfig | undefined, store: DexStore): Promise<RecordedForge | undefined> {
  if (land?.mode !== 'pr' || !land.pr || !land.remote) return undefined;
  const runs = await RunHistory.chain(handle);
  const start = runs[0].startedAt();
  const calls = runs.flatMap((run) => run.activityCalls(FORGE_ACTIVITIES)).map((call): RecordedForgeCall => {
    const { target: _target, ...input } = call.input as Record<string, unknown>;
    return {
      activity: call.type as ForgeActivity,
      atMs: call.at - start,
      input,
      ...('result' in call ? { result: call.result } : {}),
      ...(call.failure ? { failure: call.failure } : {}),
    };
  });
  const logs: Record<string, string> = {};
  for (const call of calls) {
    const ref = call.activity === 'readCheckLog' ? (call.result as CheckLog | undefined)?.ref : undefined;
    if (ref) logs[ref] = (await store.getArtifact(ref))?.content ?? '';
  }
  return { remote: land.remote, landing: land.pr, calls, logs };
}

/** Checks a sidecar's `forge` enough that a replay can use it; `fail` throws the one-line error. */
export function checkRecordedForge(forge: unknown, fail: (what: string) => never): RecordedForge {
  const f = forge as Partial<RecordedForge> | null;
  if (typeof f !== 'object' || f === null) fail('"forge" must be a map');
  if (typeof f!.remote !== 'string' || !f!.remote) fail('"forge.remote" must name the remote');
  const landing = f!.landing as Partial<PullRequestLanding> | undefined;
  if (!landing || typeof landing.owner !== 'string' || typeof landing.repo !== 'string' || typeof landing.profile !== 'string') {
    fail('"forge.landing" must be the recorded land.pr (forge, owner, repo, profile…)');
  }
  const calls = f!.calls;
  if (!Array.isArray(calls) || calls.some((c) => !FORGE_ACTIVITIES.has(c?.activity) || typeof c.atMs !== 'number' || typeof c.input !== 'object')) {
    fail('"forge.calls" must be a list of forge calls, each with activity, atMs and input');
  }
  if (typeof f!.logs !== 'object' || f!.logs === null) fail('"forge.logs" must map log references to their text');
  return f as RecordedForge;
}

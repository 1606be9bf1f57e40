import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { verifyResultKey } from '../core/ids';
import type { SandboxPolicy } from '../core/sandbox-policy';
import type { ActivityDeps } from './deps';
import { dexGit } from './dex-git';
import { createVerifyActivities, type VerifyResult } from './verify';

/** Input of `verifyBaseline`: the task's verify commands, run on its base commit. */
export interface BaselineInput {
  repoPath: string;
  baseSha: string;
  commands: string[];
  timeoutMs: number;
  sandbox?: SandboxPolicy;
}

/** The failures the base commit already has, and the id of their report. */
export interface Baseline {
  failures: string[];
  artifactId: string;
}

/**
 * The activity that learns which verify failures a task's base commit already had
 * (docs/roadmaps.md#baseline-aware-verify): every command runs on a detached checkout of the
 * base, confined like the task's own verify. Cached per repository, base and commands, so the
 * tasks of a roadmap that start from the same commit run it once: one that finished is read from
 * the store, and parallel tasks asking while it runs wait for that run (one checkout folder per
 * baseline, which a second run would remove under the first).
 */
export const createVerifyBaselineActivities = (deps: ActivityDeps) => {
  const { verify } = createVerifyActivities(deps);
  const running = new Map<string, Promise<Baseline>>();

  async function runBaseline(input: BaselineInput, id: string): Promise<Baseline> {
    const artifactId = `verify-baseline/${id}`;
    const earlier = await deps.store.getArtifact(verifyResultKey(artifactId));
    if (earlier) return { failures: baselineFailures(JSON.parse(earlier.content) as VerifyResult), artifactId };

    const path = join(deps.dexHome, 'baselines', `${input.baseSha.slice(0, 12)}-${id}`);
    const git = dexGit(input.repoPath);
    // A folder left by an attempt that crashed is not to be trusted: start again.
    if (existsSync(path)) await rm(path, { recursive: true, force: true });
    await git.raw(['worktree', 'prune']);
    await git.raw(['worktree', 'add', '--detach', path, input.baseSha]);
    try {
      const result = await verify({ worktreePath: path, commands: input.commands, timeoutMs: input.timeoutMs, artifactId, sandbox: input.sandbox, baseline: [] });
      return { failures: baselineFailures(result), artifactId };
    } finally {
      await git.raw(['worktree', 'remove', '--force', path]).catch(() => rm(path, { recursive: true, force: true }));
    }
  }

  return {
    async verifyBaseline(input: BaselineInput): Promise<Baseline> {
      const id = createHash('sha256')
        .update(JSON.stringify([realpathSync(input.repoPath), input.baseSha, input.commands, input.sandbox?.mode ?? 'bwrap']))
        .digest('hex')
        .slice(0, 16);
      let run = running.get(id);
      if (!run) {
        run = runBaseline(input, id).finally(() => running.delete(id));
        running.set(id, run);
      }
      return run;
    },
  };
};

/** Against an empty baseline every failure is new: those are the base's failures. */
function baselineFailures(result: VerifyResult): string[] {
  return result.newFailures ?? [];
}

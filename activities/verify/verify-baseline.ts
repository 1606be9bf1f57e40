import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { verifyResultKey } from '../../core/run/ids';
import type { SandboxPolicy } from '../../core/safety/sandbox-policy';
import type { ActivityDeps } from '../deps';
import { dexGit } from '../../host/git/dex-git';
import { ownerGone, ownerTag } from '../../host/process-owner';
import { removeTree } from '../../host/worktree/remove-tree';
import type { VerifyResult } from '../../core/task/task-types';
import { createVerifyActivities } from './verify';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import type { SetupConfig } from '../../core/run/setup-types';
import { prepareDependencies } from '../../host/dependencies/prepare-dependencies';
import { SetupFailed } from '../../host/dependencies/setup-failed';
import { hostDependencyCache } from '../run/host-dependency-cache';
import type { ForgeRepository } from '../../core/fleet/repo-locator';
import { repositoryHere } from '../task/worktree-state';

/** Input of `verifyBaseline`: the task's verify commands, run on its base commit. */
interface BaselineInput {
  repoPath: string;
  /** A task on a forge repository: the base is checked out from this worker's mirror (docs/fleet.md). */
  repo?: ForgeRepository;
  baseSha: string;
  commands: string[];
  timeoutMs: number;
  sandbox?: SandboxPolicy;
  /** How the checkout gets its dependencies, as the task's worktree does (docs/real-repositories.md); `false`: none. */
  setup?: SetupConfig | false;
}

/** The failures the base commit already has, and the id of their report. */
interface Baseline {
  failures: string[];
  artifactId: string;
}

/**
 * The activity that learns which verify failures a task's base commit already had
 * (docs/roadmaps.md#baseline-aware-verify): every command runs on a detached checkout of the
 * base, confined like the task's own verify. Cached per repository, base and commands, so the
 * tasks of a roadmap that start from the same commit run it once: one that finished is read from
 * the store, and parallel tasks asking while it runs wait for that run. Two worker processes on
 * one host may both run it (the stored result is written once); each has its own checkout folder,
 * so neither removes the other's.
 */
export const createVerifyBaselineActivities = (deps: ActivityDeps) => {
  const { verify } = createVerifyActivities(deps);
  const caches = hostDependencyCache(deps);
  const running = new Map<string, Promise<Baseline>>();
  // Whose checkout a folder is: this process, and this set of activities in it (a process can hold several workers).
  const owner = ownerTag();

  /**
   * Removes the checkouts of `folder`'s baseline that nobody runs: one of ours (an attempt that
   * failed before it cleaned up; ours run one at a time) or one whose process is gone. Another
   * live process's checkout is left alone: it is running the same baseline now.
   */
  async function removeAbandoned(dir: string, folder: string): Promise<void> {
    const entries = existsSync(dir) ? await readdir(dir) : [];
    for (const entry of entries) {
      if (!entry.startsWith(`${folder}-`)) continue;
      const entryOwner = entry.slice(folder.length + 1);
      if (entryOwner === owner || ownerGone(entryOwner)) await removeTree(join(dir, entry));
    }
  }

  async function runBaseline(input: BaselineInput, id: string): Promise<Baseline> {
    const artifactId = `verify-baseline/${id}`;
    const earlier = await deps.store.getArtifact(verifyResultKey(artifactId));
    if (earlier) return { failures: baselineFailures(JSON.parse(earlier.content) as VerifyResult), artifactId };

    const folder = `${input.baseSha.slice(0, 12)}-${id}`;
    const path = join(deps.dexHome, 'baselines', `${folder}-${owner}`);
    const repoPath = await repositoryHere(input, deps.dexHome);
    const git = dexGit(repoPath);
    await removeAbandoned(join(deps.dexHome, 'baselines'), folder);
    await git.raw(['worktree', 'prune']);
    await git.raw(['worktree', 'add', '--detach', path, input.baseSha]);
    try {
      // Without its dependencies every test of a real project fails on the base, and every failure would look pre-existing.
      if (input.setup !== false) {
        await prepareDependencies({ worktree: path, ownerDir: repoPath, config: input.setup, sandbox: input.sandbox, ...caches, command: { timeoutMs: input.timeoutMs } }).catch((err: unknown) => {
          if (err instanceof SetupFailed) throw nonRetryable(FAILURE.SetupFailed, `verify baseline: ${err.message}`, [{ tail: err.tail }]);
          throw err;
        });
      }
      const result = await verify({ worktreePath: path, commands: input.commands, timeoutMs: input.timeoutMs, artifactId, sandbox: input.sandbox, baseline: [] });
      return { failures: baselineFailures(result), artifactId };
    } finally {
      await git.raw(['worktree', 'remove', '--force', path]).catch(() => removeTree(path));
    }
  }

  return {
    async verifyBaseline(input: BaselineInput): Promise<Baseline> {
      const id = createHash('sha256')
        .update(JSON.stringify([input.repo ? input.repoPath : realpathSync(input.repoPath), input.baseSha, input.commands, input.sandbox?.mode ?? 'bwrap']))
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

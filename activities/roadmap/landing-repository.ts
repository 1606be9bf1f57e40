// Where a landing's git runs (docs/fleet.md#a-roadmap-on-a-forge-repository): the owner's checkout
// and its remote, with the owner's credentials, or, for a roadmap on a forge repository, this
// worker's mirror of it, fetched first, and the forge with dex's token. A fleet task's branch lives
// on the worker that ran it; what every worker has is the task's worktree recorded on the forge's
// hidden ref at its end, whose parent is the branch's last commit: that is the task's head here.

import type { ForgeRepository } from '../../core/fleet/repo-locator';
import { runOfTaskBranch, taskStateRef } from '../../core/run/ids';
import { forgeCaBundleFile } from '../../host/forge/forge-ca';
import { dexRemoteGit } from '../../host/git/dex-git';
import { ensureMirror, forgeGitIn } from '../../host/git/repo-mirror';

/** Git as a landing uses it: a command's stdout. */
export type LandingGit = { raw(args: string[]): Promise<string> };

/** What a landing's activity needs to know of where it lands. */
export interface LandingPlace {
  repoPath: string;
  remote: string;
  /** `land.pr.caFile`: the forge's CA (host/forge/forge-ca.ts). */
  caFile?: string;
  /** A roadmap on a forge repository: the mirror and the forge instead of a checkout and its remote. */
  repo?: ForgeRepository;
}

interface LandingRepository {
  /** The repository the landing's git runs in. */
  dir: string;
  /** What a push or fetch names: the owner's remote, or the forge's URL. */
  remote: string;
  /** Git in `cwd` (the repository, or a worktree of it), with `config` added. */
  gitIn(cwd: string, config?: string[]): LandingGit;
  /** The revision that stands for `rev` here: a task's branch (`dex/<run>`), or a commit, which stands for itself. */
  taskRev(rev: string): string;
  /** The remote's `branch` as this repository knows it after `fetch` (undefined: the mirror was fetched already). */
  fetchArgs(branch: string): string[] | undefined;
  tracking(branch: string): string;
  /** True for the owner's checkout, which a landing may fast-forward. */
  ownersCheckout: boolean;
}

/** The repository a landing works in, ready: a forge repository's mirror is fetched first. */
export async function landingRepository(place: LandingPlace, dexHome: string): Promise<LandingRepository> {
  const repo = place.repo;
  if (!repo) {
    const ca = forgeCaBundleFile(place.caFile);
    return {
      dir: place.repoPath,
      remote: place.remote,
      gitIn: (cwd, config = []) => dexRemoteGit(cwd, config, ca),
      taskRev: (branch) => branch,
      fetchArgs: (branch) => ['fetch', '--no-tags', place.remote, `+refs/heads/${branch}:refs/remotes/${place.remote}/${branch}`],
      tracking: (branch) => `refs/remotes/${place.remote}/${branch}`,
      ownersCheckout: true,
    };
  }
  const reach = { env: process.env, caFile: forgeCaBundleFile(repo.caFile) };
  const { path } = await ensureMirror(repo, { dexHome, ...reach });
  return {
    dir: path,
    remote: repo.gitUrl,
    gitIn: (cwd, config = []) => forgeGitIn(repo, cwd, reach, config),
    taskRev: (rev) => {
      const run = runOfTaskBranch(rev);
      return run ? `${taskStateRef(run)}^` : rev;
    },
    fetchArgs: () => undefined,
    tracking: (branch) => `refs/heads/${branch}`,
    ownersCheckout: false,
  };
}

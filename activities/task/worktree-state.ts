import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ForgeRepository } from '../../core/fleet/repo-locator';
import { forgeCaBundleFile } from '../../host/forge/forge-ca';
import { dexGitConfig, dexGitEnv } from '../../host/git/dex-git';
import { ensureMirror, forgeGitIn, mirrorPath } from '../../host/git/repo-mirror';
import type { ActivityDeps } from '../deps';
import { heartbeatingWhileRunning } from '../run/local-heartbeat';

/**
 * The folder an activity opens for a task's repository: the local checkout, or, for a task on a
 * forge repository (docs/fleet.md), this worker's bare mirror of it — fetched first when `fresh`
 * (a worktree is about to be made from it), else as it is.
 */
export async function repositoryHere(input: { repoPath: string; repo?: ForgeRepository }, dexHome: string, fresh = false): Promise<string> {
  if (!input.repo) return input.repoPath;
  if (!fresh) return mirrorPath(dexHome, input.repo);
  return (await ensureMirror(input.repo, { dexHome, env: process.env, caFile: forgeCaBundleFile(input.repo.caFile) })).path;
}

/** Who a recorded state is by, and when: fixed, so the same worktree on the same commit is the same commit again (a retry pushes nothing new). */
const STATE_AUTHOR = { GIT_AUTHOR_NAME: 'dex', GIT_AUTHOR_EMAIL: 'dex@localhost', GIT_COMMITTER_NAME: 'dex', GIT_COMMITTER_EMAIL: 'dex@localhost', GIT_AUTHOR_DATE: '@0 +0000', GIT_COMMITTER_DATE: '@0 +0000' };

function git(cwd: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env, maxBuffer: 16 << 20 }, (err, stdout, stderr) => (err ? reject(new Error(`git ${args[0]}: ${stderr.trim() || err.message}`)) : resolve(stdout.trim())));
  });
}

/** Runs dex's own git (docs/security.md: no hooks, no repository programs) in `cwd`, with `env` added. */
const localGit = (cwd: string, args: string[], env: Record<string, string> = {}) =>
  git(cwd, [...dexGitConfig().flatMap((c) => ['-c', c]), ...args], { ...dexGitEnv(), ...env });

export const createWorktreeStateActivities = (deps: Pick<ActivityDeps, 'dexHome'>) =>
  heartbeatingWhileRunning({
    /**
     * Records a fleet task's worktree as it is now (tracked and untracked files, ignored ones
     * excepted) as a commit on the forge's hidden ref `ref`, its parent the worktree's HEAD (the
     * last checkpoint), without touching the task's index or branch: a worker that takes the task
     * up after this one is lost starts from there (docs/fleet.md#nothing-lost). The token reaches
     * git through its environment only. Idempotent: the same files give the same commit.
     */
    async recordWorktreeState(input: { worktreePath: string; repo: ForgeRepository; ref: string }): Promise<{ sha: string; head: string }> {
      const index = join(mkdtempSync(join(tmpdir(), 'dex-state-')), 'index');
      try {
        const own = { GIT_INDEX_FILE: index };
        const head = await localGit(input.worktreePath, ['rev-parse', 'HEAD']);
        await localGit(input.worktreePath, ['read-tree', 'HEAD'], own);
        await localGit(input.worktreePath, ['add', '-A'], own);
        const tree = await localGit(input.worktreePath, ['write-tree'], own);
        const sha = await localGit(input.worktreePath, ['commit-tree', tree, '-p', head, '-m', `dex: the worktree of ${input.ref} (not a checkpoint)`], STATE_AUTHOR);
        // Through the mirror's door to the forge: its failures are classified as a fetch's are (a refused token is not retried).
        await forgeGitIn(input.repo, input.worktreePath, { env: process.env, caFile: forgeCaBundleFile(input.repo.caFile) }).raw(['push', '--quiet', '--force', input.repo.gitUrl, `${sha}:${input.ref}`]);
        return { sha, head };
      } finally {
        await rm(dirname(index), { recursive: true, force: true });
      }
    },

    /**
     * Deletes a fleet task's hidden ref `ref` on the forge once the task has landed (docs/fleet.md#nothing-lost):
     * the work is on the base branch then, and nothing will take the task up again. A ref already gone is fine (a retry).
     */
    async removeWorktreeState(input: { repo: ForgeRepository; ref: string }): Promise<void> {
      const mirror = await repositoryHere({ repoPath: input.repo.gitUrl, repo: input.repo }, deps.dexHome, true);
      const git = forgeGitIn(input.repo, mirror, { env: process.env, caFile: forgeCaBundleFile(input.repo.caFile) });
      const there = (await git.raw(['ls-remote', input.repo.gitUrl, input.ref])).trim();
      if (there) await git.raw(['push', '--quiet', input.repo.gitUrl, `:${input.ref}`]);
    },
  });

// Landing on a remote (docs/roadmaps.md#landing-on-a-remote): fetch its branch, build the landing
// commit in a detached worktree of dex's own (never in the owner's checkout), push it without
// force. A push the remote refused because its branch moved is reported `moved`; the workflow
// waits durably and tries again.

import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tickTask } from '../../core/roadmap/roadmap';
import type { ActivityDeps } from '../deps';
import { DEX_COMMITTER, dexGit } from '../../host/git/dex-git';
import { landingRepository, type LandingGit, type LandingPlace } from './landing-repository';
import { contains } from './landing-merge';
import { heartbeatingWhileRunning } from '../run/local-heartbeat';
import { MERGE_TRAILER } from './landing';
import { landingWorktreeName, worktreesDir } from '../../host/worktree/worktree-home';

const COMMITTER = [`user.name=${DEX_COMMITTER.name}`, `user.email=${DEX_COMMITTER.email}`];

/** The commit among the newest 500 of `rev` that carries `Dex-Merge: <key>`, if any. */
async function landedBy(git: LandingGit, rev: string, key: string): Promise<string | undefined> {
  const log = await git.raw(['log', rev, '--format=%H%x1f%B%x1e', '-n', '500']);
  for (const entry of log.split('\x1e')) {
    const [sha, body] = entry.trim().split('\x1f');
    if (sha && body?.split('\n').some((line) => line.trim() === `${MERGE_TRAILER}: ${key}`)) return sha;
  }
  return undefined;
}

/** Where a remote's branch is now, whether the task already landed there, and whether its branch holds it. */
type RemoteHead = { head: string; landed?: string; contained: boolean };

/** How pushing a landing went. */
type PushOutcome = { status: 'pushed'; sha: string } | { status: 'moved'; head: string } | { status: 'failed'; reason: string };

interface PushInput extends LandingPlace {
  branch: string;
  /** The remote's head the task branch was finalized onto. */
  remoteHead: string;
  taskBranch: string;
  /** The owner's checkout branch, fast-forwarded to what landed when it can be. */
  baseBranch: string;
  roadmapFile: string;
  taskId: string;
  title: string;
  key: string;
}

type FetchInput = LandingPlace & { branch: string; taskBranch: string; key: string };

async function readRemoteHead(input: FetchInput, dexHome: string): Promise<RemoteHead> {
  const at = await landingRepository(input, dexHome);
  const git = at.gitIn(at.dir);
  const fetch = at.fetchArgs(input.branch);
  if (fetch) await git.raw(fetch);
  const head = (await git.raw(['rev-parse', at.tracking(input.branch)])).trim();
  return { head, landed: await landedBy(git, head, input.key), contained: await contains(git, at.taskRev(input.taskBranch), head) };
}

export const createLandingRemoteActivities = (deps: ActivityDeps) => heartbeatingWhileRunning({
  /** Fetches `remote`'s `branch` into its remote-tracking ref of the owner's repository. */
  fetchRemoteHead: (input: FetchInput): Promise<RemoteHead> => readRemoteHead(input, deps.dexHome),

  /**
   * Builds the landing commit (`remoteHead` merged with the task branch, the box ticked, the
   * `Dex-Merge` trailer) in a detached worktree and pushes it to the remote's branch, never forced.
   * Refused because the remote moved: `moved`. Pushed: the owner's checkout fast-forwards to it
   * when it is on the base branch, clean, and behind it.
   */
  async pushLanding(input: PushInput): Promise<PushOutcome> {
    const path = join(worktreesDir(deps.dexHome), landingWorktreeName(input.key));
    const at = await landingRepository(input, deps.dexHome);
    const repo = at.gitIn(at.dir, COMMITTER);
    await repo.raw(['worktree', 'prune']);
    if (!existsSync(path)) await repo.raw(['worktree', 'add', '--detach', path, input.remoteHead]);
    const git = at.gitIn(path, COMMITTER);
    await git.raw(['reset', '--hard', input.remoteHead]);
    await git.raw(['clean', '-ffd']);
    await git.raw(['merge', '--no-ff', '--no-commit', '--no-verify', at.taskRev(input.taskBranch)]);
    const roadmapPath = join(path, input.roadmapFile);
    await writeFile(roadmapPath, tickTask(await readFile(roadmapPath, 'utf8'), input.taskId));
    await git.raw(['add', '--', input.roadmapFile]);
    await git.raw(['commit', '--no-verify', '-m', `dex: land ${input.taskId}: ${input.title}\n\n${MERGE_TRAILER}: ${input.key}`]);
    const sha = (await git.raw(['rev-parse', 'HEAD'])).trim();
    const refused = await git.raw(['push', '--no-verify', at.remote, `${sha}:refs/heads/${input.branch}`]).then(() => undefined, (err: unknown) => err);
    if (refused) {
      const fetched = await readRemoteHead(input, deps.dexHome);
      if (fetched.landed) return { status: 'pushed', sha: fetched.landed };
      if (fetched.head !== input.remoteHead) return { status: 'moved', head: fetched.head };
      return { status: 'failed', reason: `git push ${at.remote} refused the landing: ${refused instanceof Error ? refused.message : String(refused)}` };
    }
    await repo.raw(['worktree', 'remove', '--force', path]);
    if (at.ownersCheckout) await fastForwardCheckout(input.repoPath, input.baseBranch, sha);
    return { status: 'pushed', sha };
  },
});

/** Moves the owner's checkout to `sha` when that is a fast-forward of a clean checkout on `baseBranch`; else leaves it. */
async function fastForwardCheckout(repoPath: string, baseBranch: string, sha: string): Promise<void> {
  const git = dexGit(repoPath);
  if ((await git.raw(['rev-parse', '--abbrev-ref', 'HEAD'])).trim() !== baseBranch) return;
  if ((await git.raw(['status', '--porcelain', '--untracked-files=no'])).trim()) return;
  if (await contains(git, sha, 'HEAD')) await git.raw(['merge', '--ff-only', sha]);
}

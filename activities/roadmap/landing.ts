import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tickTask } from '../../core/roadmap/roadmap';
import type { ActivityDeps } from '../deps';
import { dexGit } from '../../host/git/dex-git';
import { contains } from './landing-merge';
import { heartbeatingWhileRunning } from '../run/local-heartbeat';

/** The trailer that marks the commit landing a task on the base branch. */
export const MERGE_TRAILER = 'Dex-Merge';

/** How landing a task's branch went. */
type MergeOutcome =
  | { status: 'merged'; sha: string }
  /** The base moved past the branch's start: finalize (merge and verify) before landing (docs/roadmaps.md#finalize). */
  | { status: 'behind'; baseSha: string }
  | { status: 'conflict'; files: string[] }
  | { status: 'blocked'; reason: string };

/** Landing a finished task's branch on the base branch, in the owner's checkout (docs/roadmaps.md#how-a-run-goes). */
export const createLandingActivities = (_deps: ActivityDeps) => heartbeatingWhileRunning({
  /**
   * Merges `branch` into the base branch in the repository's checkout, ticking the task's box
   * in the roadmap in the same commit. Idempotent: a base branch that already has the commit
   * with this `key` returns it. A conflict is aborted and reported, never left half-done. With
   * `finalize`, a branch that lacks the base's newest commit is reported `behind`, not merged.
   */
  async mergeTaskBranch(input: {
    repoPath: string;
    baseBranch: string;
    branch: string;
    roadmapFile: string;
    taskId: string;
    title: string;
    key: string;
    /** Report `behind` instead of merging a branch that lacks the base's newest commits. */
    finalize?: boolean;
  }): Promise<MergeOutcome> {
    // The owner's checkout: dex lands as itself, and runs none of the repository's hooks.
    const git = dexGit(input.repoPath, ['user.name=dex', 'user.email=dex@localhost']);
    const log = await git.raw(['log', input.baseBranch, '--format=%H%x1f%B%x1e', '-n', '500']);
    for (const entry of log.split('\x1e')) {
      const [sha, body] = entry.trim().split('\x1f');
      // The whole trailer line: a key must not match as the prefix of another (T1 of T10).
      if (sha && body?.split('\n').some((line) => line.trim() === `${MERGE_TRAILER}: ${input.key}`)) return { status: 'merged', sha };
    }
    const head = (await git.raw(['rev-parse', '--abbrev-ref', 'HEAD'])).trim();
    if (head !== input.baseBranch) {
      return { status: 'blocked', reason: `the repository's checkout is on ${head}, not on the base branch ${input.baseBranch}` };
    }
    const dirty = (await git.raw(['status', '--porcelain', '--untracked-files=no'])).trim();
    if (dirty) return { status: 'blocked', reason: `the repository's checkout has uncommitted changes:\n${dirty}` };
    // Only a branch that holds the base lands: what lands is then exactly the tree verify passed on.
    if (input.finalize && !(await contains(git, input.branch, input.baseBranch))) {
      return { status: 'behind', baseSha: (await git.revparse([input.baseBranch])).trim() };
    }

    // git exits 1 on a conflict, which simple-git does not always raise: ask git what is unmerged.
    const merge = await git
      .raw(['merge', '--no-ff', '--no-commit', '--no-verify', input.branch])
      .then(() => undefined, (err: unknown) => err);
    const unmerged = (await git.raw(['diff', '--name-only', '--diff-filter=U'])).split('\n').filter(Boolean);
    if (unmerged.length || merge) {
      await git.raw(['merge', '--abort']).catch(() => undefined);
      if (!unmerged.length) throw merge;
      return { status: 'conflict', files: unmerged };
    }
    const roadmapPath = join(input.repoPath, input.roadmapFile);
    await writeFile(roadmapPath, tickTask(await readFile(roadmapPath, 'utf8'), input.taskId));
    await git.add(input.roadmapFile);
    await git.raw(['commit', '--no-verify', '-m', `dex: land ${input.taskId}: ${input.title}\n\n${MERGE_TRAILER}: ${input.key}`]);
    return { status: 'merged', sha: (await git.revparse(['HEAD'])).trim() };
  },
});

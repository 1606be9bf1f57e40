import { sessionsDirFor } from '../../host/claude-code/session-files';
import { existsSync, realpathSync, rmSync, statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { ApplicationFailure } from '@temporalio/common';
import type { SimpleGit } from 'simple-git';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import { matchesAnyGlob } from '../../core/task/path-glob';
import type { Worktree } from '../../core/task/task-types';
import type { ActivityDeps } from '../deps';
import type { ForgeRepository } from '../../core/fleet/repo-locator';
import { repositoryHere } from './worktree-state';
import { followRecordedBranch, layState } from '../../host/worktree/recorded-worktree';
import { commandSetup } from '../../host/dependencies/setup-state';
import { DEX_COMMITTER, dexGit } from '../../host/git/dex-git';
import { heartbeatingWhileRunning } from '../run/local-heartbeat';
import { removeTree } from '../../host/worktree/remove-tree';
import { baseFileFor, worktreesDir } from '../../host/worktree/worktree-home';
import { PATH_BYTES_LIMIT, PATH_DEPTH_LIMIT, shortQuoted } from '../../host/worktree/worktree-paths';
import { scanWorktree } from '../../host/worktree/worktree-scan';
import { checkOutSubmodules, isSubmoduleGitFile } from '../../host/worktree/worktree-submodules';

/** The commit trailer that marks a checkpoint with its idempotency key. */
const CHECKPOINT_TRAILER = 'Dex-Checkpoint';

function invalidRepository(repoPath: string, why: string): ApplicationFailure {
  return nonRetryable(FAILURE.InvalidRepository, `${repoPath} is not usable: ${why}`);
}

/** The trimmed output of git `args`, or undefined when git fails (simple-git reports a bare non-zero exit as ''). */
async function tryGit(git: SimpleGit, args: string[]): Promise<string | undefined> {
  try {
    return (await git.raw(args)).trim();
  } catch {
    return undefined;
  }
}

/** The repository at `repoPath` and its HEAD commit; non-retryable `InvalidRepository` if there is none. */
async function openRepository(repoPath: string): Promise<{ git: SimpleGit; head: string }> {
  if (!existsSync(repoPath) || !statSync(repoPath).isDirectory()) throw invalidRepository(repoPath, 'no such folder');
  const git = dexGit(repoPath);
  if ((await tryGit(git, ['rev-parse', '--git-dir'])) === undefined) throw invalidRepository(repoPath, 'not a git repository');
  const head = await tryGit(git, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (!head) throw invalidRepository(repoPath, 'the repository has no commit yet');
  return { git, head };
}

/** The branch checked out in the worktree at `path`, or undefined when `path` is no worktree of `git`'s repository. */
async function worktreeBranch(git: SimpleGit, path: string): Promise<string | undefined> {
  const listing = await git.raw(['worktree', 'list', '--porcelain']);
  const target = canonical(path);
  for (const entry of listing.split('\n\n')) {
    const lines = entry.split('\n');
    const at = lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length);
    if (at === undefined || canonical(at) !== target) continue;
    const ref = lines.find((l) => l.startsWith('branch '))?.slice('branch '.length);
    return ref?.replace(/^refs\/heads\//, '') ?? '';
  }
  return undefined;
}

/** The base commit recorded for the worktree at `worktreePath`, if any. */
async function readBase(worktreePath: string): Promise<string | undefined> {
  const recorded = await readFile(baseFileFor(worktreePath), 'utf8').catch(() => '');
  return recorded.trim() || undefined;
}

/** `path` with symbolic links resolved as far as it exists (git reports real paths). */
function canonical(path: string): string {
  return existsSync(path) ? realpathSync(path) : resolve(path);
}

/** Git in the worktree, with dex as committer when the repository names none (dex-git turns off signing and hooks). */
async function worktreeGit(worktreePath: string): Promise<SimpleGit> {
  const probe = dexGit(worktreePath);
  const config: string[] = [];
  if (!(await tryGit(probe, ['config', '--get', 'user.name']))) config.push(`user.name=${DEX_COMMITTER.name}`);
  if (!(await tryGit(probe, ['config', '--get', 'user.email']))) config.push(`user.email=${DEX_COMMITTER.email}`);
  return dexGit(worktreePath, config);
}

/**
 * The paths whose content `git add -A` would change against HEAD: tracked changes, staged or not
 * (a rename as its deletion and its addition), and untracked files that are not ignored.
 */
async function changedPaths(git: SimpleGit, pathspec: string[]): Promise<string[]> {
  const tracked = await git.raw(['diff', 'HEAD', '--name-only', '--no-renames', '--no-ext-diff', '--no-textconv', '-z', '--', ...pathspec]);
  const untracked = await git.raw(['ls-files', '--others', '--exclude-standard', '-z', '--', ...pathspec]);
  return [...new Set(`${tracked}\0${untracked}`.split('\0').filter(Boolean))].sort();
}

/** Those of `paths` git does not ignore (naming an ignored path in `git add`, even to exclude it, is an error). */
async function notIgnored(git: SimpleGit, paths: string[]): Promise<string[]> {
  if (!paths.length) return [];
  const ignored = ((await tryGit(git, ['check-ignore', '--no-index', '--', ...paths])) ?? '').split('\n').map((line) => line.trim());
  return paths.filter((path) => !ignored.includes(path));
}

/** Paths a git call names at once: each is within the path limits, so a batch stays far under ARG_MAX. */
const PATH_BATCH = 100;

/**
 * Those of `paths` (past the path limits: docs/security.md#bounded-paths) that are the task's work:
 * not ignored, and holding nothing the repository tracks (a repository may track such paths itself).
 */
async function untrackedWork(git: SimpleGit, paths: string[]): Promise<string[]> {
  const found: string[] = [];
  for (let start = 0; start < paths.length; start += PATH_BATCH) {
    const batch = await notIgnored(git, paths.slice(start, start + PATH_BATCH));
    const tracked = batch.length ? (await git.raw(['ls-files', '-z', '--', ...batch])).split('\0').filter(Boolean) : [];
    found.push(...batch.filter((path) => !tracked.some((file) => file === path || file.startsWith(`${path}/`))));
  }
  return found;
}

/** The failure of a commit that met `paths` past the path limits. */
function beyondLimits(paths: string[]): ApplicationFailure {
  const shown = paths.slice(0, 3).map(shortQuoted).join(', ');
  return nonRetryable(
    FAILURE.PathBeyondLimits,
    `the worktree holds ${paths.length === 1 ? 'a path' : `${paths.length} paths`} deeper than ${PATH_DEPTH_LIMIT} folders or longer than ${PATH_BYTES_LIMIT} bytes (${shown}${paths.length > 3 ? ', …' : ''}); dex does not commit such paths`,
  );
}

/** A pathspec of the whole worktree but `dependencies`. */
function withoutDependencies(dependencies: string[]): string[] {
  return dependencies.length ? ['.', ...dependencies.map((path) => `:(exclude,top)${path}`)] : [];
}

/** The newest commit in `range` whose message carries the trailer `Dex-Checkpoint: <key>`. */
async function findCheckpoint(git: SimpleGit, range: string, key: string): Promise<string | undefined> {
  const trailer = `${CHECKPOINT_TRAILER}: ${key}`;
  const log = await git.raw(['log', '--fixed-strings', `--grep=${trailer}`, '--format=%H%x1f%B%x1e', range]);
  for (const record of log.split('\x1e')) {
    const [sha, body] = record.split('\x1f');
    if (body?.split('\n').some((line) => line.trim() === trailer)) return sha.trim();
  }
  return undefined;
}

/** The git activities: a worktree per task, checkpoint commits in it, rollback and removal. */
export const createTaskWorktreeActivities = (deps: ActivityDeps) => heartbeatingWhileRunning({
  /**
   * Creates branch `branch` from the repository's HEAD (or at `start.sha`, a rewound run's
   * checkpoint, its base then `start.baseSha`) and a worktree for it at
   * `<dexHome>/worktrees/<worktreeName>`; returns the existing one when it is already there.
   */
  async prepareWorktree(input: {
    repoPath: string;
    /** A task on a forge repository: the worktree is made from this worker's mirror, fetched first (docs/fleet.md). */
    repo?: ForgeRepository;
    branch: string;
    worktreeName: string;
    /** Where to start: `sha` on the branch, and `state`, a recorded worktree (activities/task/worktree-state.ts) to lay on it. */
    start?: { sha: string; baseSha: string; state?: string };
    /** A branch to start a new task branch from instead of HEAD: a person's pull request dex works on (docs/forge-triggers.md#asking-on-a-pull-request). */
    from?: string;
  }): Promise<Worktree> {
    const opened = await openRepository(await repositoryHere(input, deps.dexHome, true));
    const { git } = opened;
    const from = input.from ? await tryGit(git, ['rev-parse', '--verify', '--quiet', `refs/heads/${input.from}^{commit}`]) : opened.head;
    if (!from) throw nonRetryable(FAILURE.InvalidBranch, `the branch ${JSON.stringify(input.from)} to start from is not in the repository`);
    const head = from;
    if (!/^[\w.-]+$/.test(input.worktreeName) || /^\.+$/.test(input.worktreeName)) {
      throw nonRetryable(FAILURE.InvalidWorktreeName, `worktree name ${JSON.stringify(input.worktreeName)} must be one plain folder name`);
    }
    if ((await tryGit(git, ['check-ref-format', '--branch', input.branch])) === undefined) {
      throw nonRetryable(FAILURE.InvalidBranch, `${JSON.stringify(input.branch)} is not a valid branch name`);
    }
    const path = join(worktreesDir(deps.dexHome), input.worktreeName);
    const existing = existsSync(path) ? await worktreeBranch(git, path) : undefined;
    if (existing === input.branch) {
      const baseSha = (await readBase(path)) ?? (await git.raw(['merge-base', 'HEAD', input.branch])).trim();
      // An attempt that crashed after `worktree add` left its submodules empty; those checked out stay as they are.
      await checkOutSubmodules(path);
      // …and one that crashed before laying a recorded state left the worktree clean.
      if (input.start?.state && !(await dexGit(path).raw(['status', '--porcelain'])).trim()) await layState(path, input.start.state);
      return { path, branch: input.branch, baseSha };
    }
    if (existsSync(path)) {
      const what = existing === undefined ? 'is no worktree of this repository' : `is a worktree on ${existing || 'a detached HEAD'}`;
      throw nonRetryable(FAILURE.WorktreeConflict, `${path} ${what}, not on ${input.branch}`);
    }

    // A fleet task's later run (finalize, fix-ci) here: its branch as the run last recorded it, wherever that was.
    if (input.repo && !input.start) await followRecordedBranch(git, input.branch);
    const branchExists = Boolean(await tryGit(git, ['rev-parse', '--verify', '--quiet', `refs/heads/${input.branch}`]));
    // The base is recorded before the worktree exists, so a retry after a crash keeps the same base.
    const baseSha =
      (await readBase(path)) ?? input.start?.baseSha ?? (branchExists ? (await git.raw(['merge-base', 'HEAD', input.branch])).trim() : head);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(baseFileFor(path), `${baseSha}\n`);
    // Forget worktrees whose folders were deleted by hand, which would block `worktree add`.
    await git.raw(['worktree', 'prune']);
    await git.raw(
      branchExists ? ['worktree', 'add', path, input.branch] : ['worktree', 'add', '-b', input.branch, path, input.start?.sha ?? baseSha],
    );
    // A fleet task taken up on this worker: its files as last recorded, as changes not committed yet.
    if (input.start?.state) await layState(path, input.start.state);
    // git leaves a submodule's folder empty in a new worktree: it is filled from the owner's copy, without network.
    await checkOutSubmodules(path);
    return { path, branch: input.branch, baseSha };
  },

  /**
   * Commits everything in the worktree (even nothing) with the trailer `Dex-Checkpoint: <key>`,
   * unless a commit since the base already carries it; then returns that one with `created: false`.
   * Refuses (non-retryable `NestedGitRepository`) a worktree holding a git repository of its own.
   * When the changes touch a path matching `protectedPaths` and `allowProtected` is not set, it
   * commits nothing and returns `{ sha: '', created: false, protectedChanges }`.
   */
  async commitCheckpoint(input: {
    worktreePath: string;
    message: string;
    key: string;
    protectedPaths?: string[];
    allowProtected?: boolean;
  }): Promise<{ sha: string; created: boolean; protectedChanges?: string[] }> {
    if (!input.key || /[\r\n]/.test(input.key)) {
      throw nonRetryable(FAILURE.InvalidCheckpointKey, 'checkpoint key must be one non-empty line');
    }
    const git = await worktreeGit(input.worktreePath);
    const base = await readBase(input.worktreePath);
    const found = await findCheckpoint(git, base ? `${base}..HEAD` : 'HEAD', input.key);
    if (found) return { sha: found, created: false };

    // `add -A` would record a nested repository as a gitlink, and a later checkout of it could
    // bring its config (fsmonitor, hooks, filters) along: dex commits none.
    // The dependencies setup put in the worktree are never the task's work, whether or not the repository ignores them.
    const dependencies = commandSetup(input.worktreePath).dependencyPaths;
    const pathspec = withoutDependencies(await notIgnored(git, dependencies));
    const scan = await scanWorktree(input.worktreePath, dependencies);
    // A submodule's `.git` file as git made it is the repository's own, not a nested one of the agent's.
    const nestedGit = scan.nestedGit.filter((path) => !isSubmoduleGitFile(input.worktreePath, path));
    if (nestedGit.length) {
      throw nonRetryable(
        FAILURE.NestedGitRepository,
        `the worktree holds a nested git repository at ${nestedGit.join(', ')}; dex does not commit nested repositories`,
      );
    }
    // git skips what lies past PATH_MAX without a word: a commit of such a tree would lose work silently.
    const tooDeep = await untrackedWork(git, scan.beyondLimits);
    if (tooDeep.length) throw beyondLimits(tooDeep);
    const protectedPaths = input.protectedPaths ?? [];
    if (protectedPaths.length && !input.allowProtected) {
      const protectedChanges = (await changedPaths(git, pathspec)).filter((path) => matchesAnyGlob(path, protectedPaths));
      if (protectedChanges.length) return { sha: '', created: false, protectedChanges };
    }

    await git.raw(['add', '-A', '--', ...pathspec]);
    await git.raw(['commit', '--allow-empty', '--no-verify', '-m', input.message, '-m', `${CHECKPOINT_TRAILER}: ${input.key}`]);
    return { sha: (await git.raw(['rev-parse', 'HEAD'])).trim(), created: true };
  },

  /** Resets the worktree to `sha` and deletes untracked files, leaving `git status` clean. */
  async rollbackWorktree(input: { worktreePath: string; sha: string }): Promise<void> {
    const git = dexGit(input.worktreePath);
    await git.raw(['reset', '--hard', input.sha]);
    // The second -f removes untracked nested repositories too, which `-fd` leaves in place.
    // The dependencies stay: setup put them there, and the phases after a rollback need them.
    const dependencies = commandSetup(input.worktreePath).dependencyPaths;
    const clean = () => git.raw(['clean', '-ffd', ...dependencies.flatMap((path) => ['-e', `/${path}`])]);
    try {
      await clean();
    } catch (err) {
      // git cannot remove a tree deeper than PATH_MAX, which a command can make: dex cuts off
      // what lies past the path limits (docs/security.md#bounded-paths), then git cleans the rest.
      const tooDeep = await untrackedWork(git, (await scanWorktree(input.worktreePath, dependencies)).beyondLimits);
      if (!tooDeep.length) throw err;
      for (const path of tooDeep) await removeTree(join(input.worktreePath, path));
      await clean();
    }
  },

  /** Removes the worktree (keeping its branch); a worktree that is already gone is fine. */
  async removeWorktree(input: { repoPath: string; repo?: ForgeRepository; worktreePath: string }): Promise<void> {
    const git = dexGit(await repositoryHere(input, deps.dexHome));
    const path = input.worktreePath;
    if (existsSync(path)) {
      // git cannot delete a tree deeper than PATH_MAX (docs/security.md#bounded-paths), and forgets
      // the worktree anyway, its `.git` gone: dex removes the folder then (or what an earlier
      // attempt's git left of it), and the prune below makes git forget the rest.
      if ((await worktreeBranch(git, path)) !== undefined) await git.raw(['worktree', 'remove', '--force', path]).catch(() => removeTree(path));
      else if (!existsSync(join(path, '.git'))) await removeTree(path);
    }
    await git.raw(['worktree', 'prune']);
    // Its Claude Code sessions' files (docs/claude-code.md) are of no use without it.
    rmSync(sessionsDirFor(path), { recursive: true, force: true });
  },
});

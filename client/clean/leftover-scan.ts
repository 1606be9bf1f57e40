/**
 * What runs left on this host, found on disk before anyone asks whose it is (docs/interfaces.md#dex-clean):
 * the worktrees, `.base` files and Claude Code session folders under `$DEX_HOME/worktrees`, dex's `dex/<run>` branches in the
 * repositories those worktrees belong to, and the recorded demo repositories. A worktree's git
 * metadata is read as files, not through git, so nothing of a repository's configuration runs.
 */
import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { runOfTaskBranch, runOfTaskWorktree } from '../../core/run/ids';
import { dexGitSync } from '../../host/git/dex-git';
import { BASE_FILE_SUFFIX, baseFileFor, LANDING_WORKTREE_PREFIX, worktreesDir } from '../../host/worktree/worktree-home';
import { recordedDemoRepos, type DemoRepo } from '../demo/demo-repos';
import { repositoryMetadata } from '../../host/sandbox/repository-metadata';
import { SESSIONS_SUFFIX } from '../../host/claude-code/session-files';

/** A repository dex worked in, by its git folder (shared by all its worktrees). */
interface FoundRepo {
  gitDir: string;
  /** The folder people know it by: the checkout around its `.git`, else the git folder itself. */
  path: string;
}

/** A worktree folder under `$DEX_HOME/worktrees`. */
export interface FoundWorktree {
  path: string;
  /** The task run it belongs to; undefined for a roadmap's landing worktree. */
  run?: string;
  /** Its repository; undefined when the repository (or its record of this worktree) is gone. */
  repo?: FoundRepo;
  /** The branch checked out in it, if any. */
  branch?: string;
  /** When it last changed (ms since the epoch): the folder, its base file or its git metadata. */
  touchedMs: number;
}

/** A `.base` file beside a task's worktree (activities/task/task-worktree.ts). */
interface FoundBase {
  path: string;
  run: string;
  touchedMs: number;
}

/** A `dex/<run>` branch in a repository dex worked in. */
export interface FoundBranch {
  branch: string;
  run: string;
  repo: FoundRepo;
  /** The worktree (or the person's checkout) that has it checked out, if any. */
  checkedOutAt?: string;
}

/** Everything found. */
export interface Scan {
  worktrees: FoundWorktree[];
  bases: FoundBase[];
  /** The `.claude` folders of worktrees' Claude Code sessions (host/claude-code/session-files.ts), found as `.base` files are. */
  sessions: FoundBase[];
  branches: FoundBranch[];
  demos: DemoRepo[];
}

const mtimeMs = (path: string): number => {
  try {
    return lstatSync(path).mtimeMs;
  } catch {
    return 0;
  }
};

const readText = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
};

/** A worktree's metadata: `<path>/.git` is a file naming its folder in the repository's git folder. */
function describeWorktree(path: string, name: string): FoundWorktree | undefined {
  // The same reading of a worktree's git files the sandbox mounts by (host/sandbox/repository-metadata.ts).
  const { gitDir: adminDir, commonDir } = repositoryMetadata(path);
  // Not a git worktree: not something dex made, so not something dex removes.
  if (!adminDir || basename(dirname(adminDir)) !== 'worktrees') return undefined;
  // Without a `commondir` file the admin folder names no repository (repositoryMetadata then gives it back as its own).
  const gitDir = commonDir === adminDir ? undefined : commonDir;
  const head = /^ref: refs\/heads\/(.+)$/.exec(readText(join(adminDir, 'HEAD')) ?? '');
  const touched = [path, baseFileFor(path), adminDir, join(adminDir, 'HEAD'), join(adminDir, 'index'), join(adminDir, 'logs', 'HEAD')];
  return {
    path,
    run: name.startsWith(LANDING_WORKTREE_PREFIX) ? undefined : runOfTaskWorktree(name),
    repo: gitDir && isFolder(gitDir) ? { gitDir, path: basename(gitDir) === '.git' ? dirname(gitDir) : gitDir } : undefined,
    branch: head?.[1],
    touchedMs: Math.max(...touched.map(mtimeMs)),
  };
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The `dex/<run>` branches of `repo`, each with where it is checked out. */
function dexBranches(repo: FoundRepo): FoundBranch[] {
  const checkedOut = new Map<string, string>();
  for (const entry of dexGitSync(repo.gitDir, ['worktree', 'list', '--porcelain']).split('\n\n')) {
    const at = /^worktree (.+)$/m.exec(entry)?.[1];
    const branch = /^branch refs\/heads\/(.+)$/m.exec(entry)?.[1];
    if (at && branch) checkedOut.set(branch, at);
  }
  const refs = dexGitSync(repo.gitDir, ['for-each-ref', '--format=%(refname)', 'refs/heads/dex/']).split('\n').filter(Boolean);
  return refs.flatMap((ref) => {
    const branch = ref.slice('refs/heads/'.length);
    const run = runOfTaskBranch(branch);
    return run ? [{ branch, run, repo, checkedOutAt: checkedOut.get(branch) }] : [];
  });
}

/** Scans `dexHome` (and the repositories its worktrees belong to) for what runs left. */
export function scanLeftovers(dexHome: string): Scan {
  const dir = worktreesDir(dexHome);
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    names = [];
  }
  const worktrees: FoundWorktree[] = [];
  const bases: FoundBase[] = [];
  const sessions: FoundBase[] = [];
  for (const name of names) {
    const path = join(dir, name);
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      continue; // removed meanwhile: a run that completed as we looked
    }
    if (stat.isFile() && name.endsWith(BASE_FILE_SUFFIX) && name.length > BASE_FILE_SUFFIX.length) {
      bases.push({ path, run: runOfTaskWorktree(name.slice(0, -BASE_FILE_SUFFIX.length)), touchedMs: stat.mtimeMs });
    } else if (stat.isDirectory() && name.endsWith(SESSIONS_SUFFIX) && name.length > SESSIONS_SUFFIX.length) {
      sessions.push({ path, run: runOfTaskWorktree(name.slice(0, -SESSIONS_SUFFIX.length)), touchedMs: stat.mtimeMs });
    } else if (stat.isDirectory()) {
      const found = describeWorktree(path, name);
      if (found) worktrees.push(found);
    }
  }
  const repos = new Map<string, FoundRepo>();
  for (const w of worktrees) if (w.repo) repos.set(w.repo.gitDir, w.repo);
  // A repository git cannot read has no branches dex could delete: its worktrees still go.
  const branches = [...repos.values()].flatMap((repo) => {
    try {
      return dexBranches(repo);
    } catch {
      return [];
    }
  });
  return { worktrees, bases, sessions, branches, demos: recordedDemoRepos(dexHome) };
}

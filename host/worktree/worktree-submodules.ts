import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { dexGit, dexGitSync } from '../git/dex-git';
import { isWithin, repositoryMetadata } from '../sandbox/repository-metadata';

/** A submodule the commit records: its name in `.gitmodules` and its path in the tree. */
interface Submodule {
  name: string;
  path: string;
}

/** The submodules the worktree's HEAD records (a gitlink in its tree) and `.gitmodules` names. */
async function submodulesOf(worktree: string): Promise<Submodule[]> {
  if (!existsSync(join(worktree, '.gitmodules'))) return [];
  const git = dexGit(worktree);
  const gitlinks = new Set(
    (await git.raw(['ls-tree', '-r', '-z', 'HEAD']))
      .split('\0')
      .filter((line) => line.startsWith('160000 '))
      .map((line) => line.slice(line.indexOf('\t') + 1)),
  );
  const listed = await git.raw(['config', '--file', '.gitmodules', '-z', '--get-regexp', '^submodule\\..*\\.path$']).catch(() => '');
  const found: Submodule[] = [];
  for (const entry of listed.split('\0').filter(Boolean)) {
    const [key, path] = entry.split('\n');
    const name = key.replace(/^submodule\./, '').replace(/\.path$/, '');
    // git refuses such names itself (CVE-2018-11235); a name is a folder below .git/modules, never a way out of it.
    if (gitlinks.has(path) && !name.split('/').includes('..')) found.push({ name, path });
  }
  return found;
}

/**
 * Checks out in `worktree` the submodules its commit records, as the owner has them
 * (docs/real-repositories.md#submodules): each is cloned from the owner's own copy of it
 * (`.git/modules/<name>` of the repository, a local clone: no network) at the commit the
 * superproject records. A submodule the owner never checked out, or whose recorded commit the
 * owner's copy lacks, is left empty, as `git worktree add` leaves it. Returns the paths checked out.
 */
export async function checkOutSubmodules(worktree: string): Promise<string[]> {
  const { commonDir } = repositoryMetadata(worktree);
  if (!commonDir) return [];
  const done: string[] = [];
  for (const { name, path } of await submodulesOf(worktree)) {
    const source = join(commonDir, 'modules', name);
    if (!existsSync(join(source, 'HEAD'))) continue;
    // The url and `active` are given for this command only: the repository's own config is not written.
    const git = dexGit(worktree, ['protocol.file.allow=always', `submodule.${name}.url=${source}`, `submodule.${name}.active=true`]);
    try {
      await git.raw(['submodule', 'update', '--no-fetch', '--', path]);
      done.push(path);
    } catch {
      // Without network nothing else can fetch it: the worktree has the folder empty, as git leaves it.
    }
  }
  return done;
}

/**
 * True when `dotGit` (a `.git` entry of the worktree, relative) is a submodule's as git made it:
 * a file, at a path the commit records as a submodule (a gitlink), pointing into a `modules`
 * folder of the repository's git folder, which the sandbox mounts read-only, so nothing the agent
 * ran can have made or changed what it points to. Any other nested `.git` is a repository of the
 * agent's, which dex does not commit.
 */
export function isSubmoduleGitFile(worktree: string, dotGit: string): boolean {
  const { commonDir, gitDir: ownGitDir } = repositoryMetadata(worktree);
  const at = join(worktree, dotGit);
  const folder = dotGit.replace(/\/\.git$/i, '');
  if (!commonDir || folder === dotGit || !lstatSync(at).isFile()) return false;
  const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(at, 'utf8'))?.[1]?.trim();
  if (!pointer) return false;
  const gitDir = isAbsolute(pointer) ? pointer : resolve(join(worktree, folder), pointer);
  const inModules = [commonDir, ownGitDir].some((dir) => dir && isWithin(gitDir, join(dir, 'modules')) && gitDir !== join(dir, 'modules'));
  return inModules && dexGitSync(worktree, ['ls-tree', '-z', 'HEAD', '--', folder]).startsWith('160000 ');
}

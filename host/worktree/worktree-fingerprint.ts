import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { dexGitConfig, dexGitEnv } from '../git/dex-git';
import { processSpawner, SpawnerGone, type SpawnOptions } from '../spawner/spawner';

const execFileAsync = promisify(execFile);

/** Files up to this size are hashed by content; a larger one by its size and mtime. */
const HASHED_BYTES = 1024 * 1024;

/**
 * A short hash of the worktree's uncommitted state: equal fingerprints after two turns mean the
 * turns changed nothing, which runaway protection counts. One `git status` names what differs
 * from HEAD (untracked files too); each of those files is then hashed by its content (its link
 * target for a symlink; never followed). One git process instead of status + diff, started by
 * the spawner and not a synchronous one: a fingerprint after every tool call should not stall
 * the worker's other work.
 */
export async function worktreeFingerprint(worktreePath: string): Promise<string> {
  const args = [...dexGitConfig().flatMap((setting) => ['-c', setting]), 'status', '--porcelain=v1', '-uall', '-z'];
  const stdout = await gitStatus(args, { cwd: worktreePath, env: dexGitEnv(), maxBuffer: 64 * 1024 * 1024 });
  const hash = createHash('sha256').update(stdout);
  for (const path of changedPaths(stdout)) hash.update(`\0${path}\0${await fileState(join(worktreePath, path))}`);
  return hash.digest('hex').slice(0, 16);
}

/**
 * Runs the status through this process's spawner (one git per tool call, so its fork is kept
 * off the worker's event loop); directly when the spawner was gone before it answered.
 */
async function gitStatus(args: string[], opts: SpawnOptions): Promise<string> {
  try {
    return (await processSpawner().run('git', args, opts)).stdout.toString('utf8');
  } catch (err) {
    if (!(err instanceof SpawnerGone)) throw err;
    return (await execFileAsync('git', args, { ...opts, encoding: 'utf8' })).stdout;
  }
}

/** The paths of `git status --porcelain=v1 -z` output (a rename's or copy's original path skipped). */
function changedPaths(status: string): string[] {
  const tokens = status.split('\0').filter(Boolean);
  const paths: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const entry = tokens[i];
    paths.push(entry.slice(3));
    if (/^[RC]|^.[RC]/.test(entry)) i++; // the next token is where it came from
  }
  return paths;
}

/** What a changed path holds now, as text to hash: its content's hash, or what it is instead. */
async function fileState(path: string): Promise<string> {
  try {
    const stat = await lstat(path);
    if (stat.isSymbolicLink()) return `link ${await readlink(path)}`;
    if (!stat.isFile()) return `mode ${stat.mode}`;
    if (stat.size > HASHED_BYTES) return `big ${stat.size} ${stat.mtimeMs}`;
    return createHash('sha256').update(await readFile(path)).digest('hex');
  } catch {
    return 'missing';
  }
}

/**
 * What `dex replay-test` does besides running the run (docs/interfaces.md#recording-a-run): a
 * fresh copy of the repository at the commit the recording started from, and the comparison of
 * how the replay ended with how the recording did.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { InvalidInput } from '../../core/run/invalid-input';
import { dexGitSync } from '../../host/git/dex-git';
import type { RecordedStart, RunOutcome } from '../requests/replay-test-record';

/**
 * A new clone of `repo` with the recorded branch checked out at the start commit, in a folder
 * of the same name (run ids carry it). The clone keeps no remote: a replay must not push or
 * fetch where the recording did.
 */
export function copyAtStart(run: Pick<RecordedStart, 'branch' | 'startCommit'>, repo: string): string {
  try {
    dexGitSync(repo, ['cat-file', '-e', `${run.startCommit}^{commit}`]);
  } catch {
    throw new InvalidInput(`the recording started from ${run.startCommit}, which ${repo} does not have`);
  }
  const parent = mkdtempSync(join(tmpdir(), 'dex-replay-'));
  const copy = join(parent, basename(repo));
  // dex's git allows no transport; a clone from a local folder needs `file`, and only here.
  dexGitSync(parent, ['-c', 'protocol.file.allow=always', 'clone', '--quiet', '--no-checkout', repo, copy]);
  dexGitSync(copy, ['remote', 'remove', 'origin']);
  const branch = run.branch === 'HEAD' ? 'replay' : run.branch;
  dexGitSync(copy, ['checkout', '--quiet', '-B', branch, run.startCommit]);
  return copy;
}

/**
 * A bare repository beside `copy`, cloned from it and added to it as `remote`: where a replayed
 * landing through pull requests pushes, in place of the forge's repository (client/testing/replayed-forge.ts).
 */
export function replayRemote(copy: string, remote: string): string {
  const bare = join(dirname(copy), 'remote.git');
  dexGitSync(dirname(copy), ['-c', 'protocol.file.allow=always', 'clone', '--quiet', '--bare', copy, bare]);
  dexGitSync(copy, ['remote', 'add', remote, bare]);
  return bare;
}

/**
 * What differs between the recorded and the replayed outcome, one line each (empty: the same).
 * `files(a, b)` names the files two trees differ in, when the copy has both.
 */
export function differences(recorded: RunOutcome, replayed: RunOutcome, files: (a: string, b: string) => string[]): string[] {
  const out: string[] = [];
  if (recorded.state !== replayed.state) out.push(`state: ${replayed.state}, recorded ${recorded.state}`);
  const treeLine = (what: string, was: string | null | undefined, now: string | null | undefined) => {
    if ((was ?? null) === (now ?? null)) return;
    const changed = was && now ? files(was, now) : [];
    out.push(`${what}: tree ${now ?? 'none'}, recorded ${was ?? 'none'}${changed.length ? ` (files differ: ${changed.join(', ')})` : ''}`);
  };
  const replayedTasks = new Map(replayed.tasks.map((t) => [t.id, t]));
  for (const task of recorded.tasks) {
    const now = replayedTasks.get(task.id);
    if (!now) {
      out.push(`task ${task.id}: not in the replay`);
      continue;
    }
    if (now.state !== task.state) out.push(`task ${task.id}: state ${now.state}, recorded ${task.state}`);
    treeLine(`task ${task.id}`, task.tree, now.tree);
  }
  for (const task of replayed.tasks) if (!recorded.tasks.some((t) => t.id === task.id)) out.push(`task ${task.id}: not in the recording`);
  if (recorded.branchTree !== undefined || replayed.branchTree !== undefined) treeLine('landed branch', recorded.branchTree, replayed.branchTree);
  return out;
}

/** The files trees `a` and `b` differ in, as `repo` knows them; none when it lacks either. */
export function changedFiles(repo: string, a: string, b: string): string[] {
  try {
    return dexGitSync(repo, ['diff', '--name-only', a, b]).split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

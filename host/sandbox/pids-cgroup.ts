import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ownerGone, ownerTag } from '../process-owner';

/** A cgroup that caps how many processes one sandboxed command may have. */
export interface PidsCgroup {
  /** The `cgroup.procs` file a process writes its pid to, to join. */
  procsFile: string;
  /** Removes the cgroup once its processes are gone (a best effort: an emptied cgroup is harmless). */
  remove(): void;
}

/** The pids controller's folder for new cgroups: cgroup v1's hierarchy, or v2's own cgroup. */
function pidsRoot(): string | undefined {
  if (existsSync('/sys/fs/cgroup/pids/cgroup.procs')) return '/sys/fs/cgroup/pids';
  const v2 = /^0::(.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))?.[1];
  if (v2 === undefined) return undefined;
  const own = join('/sys/fs/cgroup', v2);
  return readFileSync(join(own, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes('pids') ? own : undefined;
}

/** Removes the cgroup `dir`, retrying while the namespace it served is still being torn down. */
function removeWhenEmpty(dir: string, triesLeft: number): void {
  try {
    rmdirSync(dir);
  } catch {
    if (triesLeft > 0) setTimeout(() => removeWhenEmpty(dir, triesLeft - 1), 200).unref();
  }
}

/** Removes the empty cgroups of worker processes that have gone (their last removal may not have run). */
function sweepOrphans(root: string): void {
  for (const name of readdirSync(root)) {
    const owner = /^dex-(\d+-[0-9a-f]+)$/.exec(name)?.[1];
    if (owner && ownerGone(owner)) removeWhenEmpty(join(root, name), 0);
  }
}

/**
 * Makes a cgroup with `pids.max = max`, or returns undefined where none can be made (no
 * controller, no permission). The process limit of the sandbox rests on it: RLIMIT_NPROC
 * does not bind root, whom the sandbox maps the worker's user to.
 */
export function createPidsCgroup(max: number): PidsCgroup | undefined {
  try {
    const root = pidsRoot();
    if (!root) return undefined;
    sweepOrphans(root);
    const dir = join(root, `dex-${ownerTag()}`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'pids.max'), String(max));
    return {
      procsFile: join(dir, 'cgroup.procs'),
      remove: () => removeWhenEmpty(dir, 10),
    };
  } catch {
    return undefined;
  }
}

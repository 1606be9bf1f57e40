import { lstatSync, readdirSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isSystemPath } from '../../sandbox/bwrap-args';
import { isWithin } from '../../sandbox/repository-metadata';

/** Folders of a JDK whose files may be links out of it: Debian's JDK keeps its configuration in /etc/java-17-openjdk. */
const LINKED = ['conf', 'lib'];

/** Every link below `dir` (up to `depth` folders down), as the path it resolves to; none that are broken. */
function linksBelow(dir: string, depth: number): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const path = join(dir, name);
    const info = lstatSync(path);
    if (info.isDirectory()) return depth > 0 ? linksBelow(path, depth - 1) : [];
    if (!info.isSymbolicLink()) return [];
    try {
      return [realpathSync(path)];
    } catch {
      return [];
    }
  });
}

/** The fewest folders that hold all of `paths`: each drops out when another holds it. */
export const outermost = (paths: string[]): string[] => [...new Set(paths)].filter((path, _, all) => !all.some((other) => other !== path && isWithin(path, other))).sort();

/**
 * The folders outside the JDK at `javaHome` and the system folders that its configuration files
 * link into, for the sandbox to mount read-only (docs/real-repositories.md#toolchains): Debian's
 * `/etc/java-17-openjdk` (java.security, jvm.cfg), without which no `java` starts.
 */
export function jdkLinkedFolders(javaHome: string): string[] {
  const targets = LINKED.flatMap((folder) => linksBelow(join(javaHome, folder), 2)).filter((path) => !isWithin(path, javaHome) && !isSystemPath(path));
  return outermost(targets.map((path) => dirname(path)));
}

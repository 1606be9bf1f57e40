import { createHash } from 'node:crypto';
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { findOnPath } from '../../find-on-path';
import { isSystemPath } from '../../sandbox/bwrap-args';
import { readText } from '../ecosystem-plan';
import { mountable } from '../host-toolchains';

/** The Gradle a project's wrapper asks for (gradle/wrapper/gradle-wrapper.properties). */
interface WantedGradle {
  /** `distributionUrl` as the wrapper reads it (`\:` unescaped). */
  url: string;
  /** The zip's name without `.zip` (`gradle-8.5-bin`): the wrapper's folder for it. */
  name: string;
}

/** A Gradle installation setup can run: its `bin`, and what the sandbox mounts of it. */
export interface FoundGradle {
  binDir: string;
  mounts: string[];
}

/** The distribution the project's wrapper wants; undefined without a wrapper. */
export function wantedGradle(dir: string): WantedGradle | undefined {
  const text = readText(join(dir, 'gradle', 'wrapper', 'gradle-wrapper.properties')) ?? '';
  const url = /^\s*distributionUrl\s*=\s*(\S+)/m.exec(text)?.[1].replace(/\\(.)/g, '$1');
  const name = url?.split('/').at(-1)?.replace(/\.zip$/, '');
  return url && name ? { url, name } : undefined;
}

/** The wrapper's folder for `url` below `dists/<name>/`: base 36 of the URL's MD5, as Gradle's PathAssembler names it. */
export const distributionHash = (url: string): string => BigInt(`0x${createHash('md5').update(url).digest('hex')}`).toString(36);

const folders = (dir: string): string[] => {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(dir, e.name));
  } catch {
    return [];
  }
};

/** `home` as setup runs it: its `bin`, and the folder mounted unless a system one (never one that is not {@link mountable}). */
function installation(home: string): FoundGradle | undefined {
  const real = realpathSync(home);
  if (!isSystemPath(real) && !mountable(real)) return undefined;
  return { binDir: join(real, 'bin'), mounts: isSystemPath(real) ? [] : [real] };
}

/** The owner's Gradle home, where the wrapper keeps the distributions it unpacked. */
export const ownerGradleHome = (): string => process.env.GRADLE_USER_HOME ?? join(homedir(), '.gradle');

/**
 * The owner's unpacked copy of `wanted` (docs/real-repositories.md#maven-and-gradle): in the
 * wrapper's folder for its URL (`<gradle user home>/wrapper/dists/gradle-8.5-bin/<hash>/gradle-8.5`),
 * else in one for the same distribution from another URL (a mirror's).
 */
export function ownerDistribution(wanted: WantedGradle, gradleUserHome: string): FoundGradle | undefined {
  const dists = join(gradleUserHome, 'wrapper', 'dists', wanted.name);
  const own = join(dists, distributionHash(wanted.url));
  const unpacked = [own, ...folders(dists).filter((f) => f !== own)].flatMap(folders).find((home) => existsSync(join(home, 'bin', 'gradle')));
  return unpacked ? installation(unpacked) : undefined;
}

/** The `gradle` on the worker's PATH, as an installation; undefined when there is none. */
export function machineGradle(program = findOnPath('gradle')): FoundGradle | undefined {
  return program ? installation(dirname(dirname(realpathSync(program)))) : undefined;
}

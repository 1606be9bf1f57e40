import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { findOnPath } from '../../find-on-path';
import { isSystemPath } from '../../sandbox/bwrap-args';
import { SANDBOX_PATH } from '../../sandbox/sandbox-env';
import { mountable } from '../host-toolchains';
import { outermost } from './java-home';

/** The machine's Maven as the sandbox needs it: what to put on PATH and mount, and where its own settings are. */
export interface MachineMaven {
  /** Its `bin`, when the sandbox's PATH does not find `mvn` already. */
  binDir?: string;
  /** Host folders and files to mount read-only. */
  mounts: string[];
  /** Its global settings (`conf/settings.xml`): read for mirrors, never mounted. */
  globalSettings: string;
}

/**
 * What of a Maven installation runs it: its launcher, its jars, the classworlds file and the
 * logging configuration. Not `conf/settings.xml`, which may hold credentials.
 */
const RUNS_IT = ['bin', 'boot', 'lib', 'bin/m2.conf', 'conf/logging'];

/**
 * The `mvn` of the worker's PATH (docs/real-repositories.md#maven-and-gradle), or undefined when
 * there is none. Debian's keeps m2.conf and its logging configuration in /etc/maven, which the
 * sandbox mounts only as those two; a Maven outside the system folders (SDKMAN's) is mounted as
 * its launcher and jars.
 */
export function machineMaven(program = findOnPath('mvn')): MachineMaven | undefined {
  if (!program) return undefined;
  const home = dirname(dirname(realpathSync(program)));
  const parts = RUNS_IT.map((part) => join(home, part)).filter((path) => existsSync(path)).map((path) => realpathSync(path));
  const mounts = outermost(parts.filter((path) => !isSystemPath(path) && mountable(path)));
  const onPath = SANDBOX_PATH.split(':').includes(dirname(program));
  return { binDir: onPath ? undefined : join(home, 'bin'), mounts, globalSettings: join(home, 'conf', 'settings.xml') };
}

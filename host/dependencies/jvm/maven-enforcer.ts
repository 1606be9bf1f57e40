import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { lastLines, type ShellCommandResult } from '../../shell/shell-command';
import { copyTree } from '../dependency-cache';
import { DOWNLOADS_INSIDE, readRecord, type EcosystemPlan } from '../ecosystem-plan';
import { SetupFailed, telling } from '../setup-failed';
import { DEX_MAVEN_HOME, mavenCommand } from './maven-plan';
import { chooseMaven, compareMavenVersions, parseMavenRange } from './maven-version-range';

/** maven-distribution.sh, beside this file, handed to the sandbox in the environment as jvm-setup.sh is. */
const SCRIPT = readFileSync(join(__dirname, 'maven-distribution.sh'), 'utf8');

/**
 * What the enforcer's `requireMavenVersion` prints when the Maven running it is outside the range
 * the project asks (a bare version, as older enforcers print it, means at least that version).
 */
const ENFORCER = /Detected Maven Version: (?<got>\S+) is not in the allowed range (?<range>\S+?)\.?\s*$/m;

/** A Maven release's name as a folder of the download cache has it: numbers only, nothing a path could abuse. */
const RELEASE_FOLDER = /^apache-maven-(\d+(?:\.\d+)*)$/;

/** Where a worktree keeps which Maven its setup ran: in Maven's home, so the cache keeps it with the Maven it names. */
const RECORD = `${DEX_MAVEN_HOME}/dex-maven.json`;

/** The Maven a setup ran past the enforcer: its version, and the setup line's note. */
interface MavenRecord {
  version: string;
  note: string;
}

/** What fetching a Maven needs of setup: the worktree, the host folder of setup's download caches, and a run of a command in setup's sandbox. */
export interface MavenFetch {
  worktree: string;
  downloads: string;
  run: (plan: EcosystemPlan) => Promise<ShellCommandResult>;
}

/** The worktree's copy of Maven `version`, relative to the worktree. */
const inWorktree = (version: string): string => `${DEX_MAVEN_HOME}/apache-maven-${version}`;

/** `plan` run with the worktree's Maven `version`: its bin first on PATH, before the machine's `mvn`. */
const onMaven = (plan: EcosystemPlan, version: string): EcosystemPlan => ({ ...plan, binDirs: [`${inWorktree(version)}/bin`, ...plan.binDirs] });

/** The Mavens unpacked in the download cache already. */
function cachedMavens(downloads: string): string[] {
  try {
    return readdirSync(join(downloads, 'maven')).flatMap((name) => {
      const version = RELEASE_FOLDER.exec(name)?.[1];
      return version && existsSync(join(downloads, 'maven', name, 'bin', 'mvn')) ? [version] : [];
    });
  } catch {
    return [];
  }
}

/** Runs maven-distribution.sh with `args` in setup's sandbox, with Maven Central's hosts and the download cache. */
function distribution(fetch: MavenFetch, plan: EcosystemPlan, args: string): Promise<ShellCommandResult> {
  const env = { ...plan.setupEnv, DEX_DOWNLOADS: DOWNLOADS_INSIDE, DEX_MAVEN_DISTRIBUTION: SCRIPT };
  return fetch.run({ ...plan, command: `sh -c "$DEX_MAVEN_DISTRIBUTION" maven-distribution ${args}`, setupEnv: env });
}

/**
 * The Maven release to run for `range`: one in the download cache, else the one Maven Central
 * lists (chooseMaven), fetched into the cache. Throws {@link SetupFailed} when none can be had.
 */
async function mavenFor({ range, got }: Record<'range' | 'got', string>, asked: string, fetch: MavenFetch, plan: EcosystemPlan): Promise<string> {
  const cached = chooseMaven(cachedMavens(fetch.downloads), range, got);
  if (cached) return cached;
  const failed = (why: string, run: ShellCommandResult) =>
    new SetupFailed(`setup failed: maven: ${asked}, and no Maven in it could be had: ${why}; none is in dex's download cache (${join(fetch.downloads, 'maven')})`, lastLines(run.output, { lines: 15, chars: 1500 }));
  const listed = await distribution(fetch, plan, 'releases');
  const releases = /^releases: (.*)$/m.exec(listed.output)?.[1].split(' ').filter(Boolean) ?? [];
  if (listed.exitCode !== 0 || !releases.length) throw failed(`Maven Central's list of releases could not be read (${telling(listed.output) || 'no answer'})`, listed);
  const version = chooseMaven(releases, range, got);
  if (!version) throw failed(`Maven Central lists no release in ${range} (its newest release: ${releases.filter((v) => /^\d+(\.\d+)*$/.test(v)).sort(compareMavenVersions).at(-1)})`, listed);
  const fetched = await distribution(fetch, plan, version);
  if (fetched.exitCode !== 0 || fetched.timedOut) throw failed(`Maven ${version} could not be fetched from Maven Central (${telling(fetched.output)})`, fetched);
  return version;
}

/**
 * The install to run again after a Maven setup without the project's wrapper failed on the
 * enforcer's `requireMavenVersion` (docs/real-repositories.md#maven-and-gradle): with the newest
 * Maven of the release line closest to the range asked, taken from the download cache or fetched
 * from Maven Central, and copied into the worktree's Maven home, whose bin goes first on PATH.
 * Undefined for any other failure; throws {@link SetupFailed} when no Maven in the range can be had.
 */
export async function mavenRetry(plan: EcosystemPlan, output: string, fetch: MavenFetch): Promise<{ plan: EcosystemPlan; record: MavenRecord } | undefined> {
  if (plan.ecosystem !== 'maven' || mavenCommand(fetch.worktree) !== 'mvn') return undefined;
  const found = ENFORCER.exec(output)?.groups;
  if (!found || !parseMavenRange(found.range)) return undefined;
  const asked = `the enforcer asks ${found.range}, the machine has ${found.got}`;
  const version = await mavenFor({ range: found.range, got: found.got }, asked, fetch, plan);
  if (!existsSync(join(fetch.worktree, inWorktree(version), 'bin', 'mvn'))) await copyTree(join(fetch.downloads, 'maven', `apache-maven-${version}`), join(fetch.worktree, inWorktree(version)));
  return { plan: onMaven(plan, version), record: { version, note: `Maven ${version} from Maven Central: ${asked}` } };
}

/** Keeps `record` in the worktree that was just set up, for the cache to carry to the next worktree. */
export async function writeMavenRecord(worktree: string, record: MavenRecord): Promise<void> {
  await writeFile(join(worktree, RECORD), `${JSON.stringify(record)}\n`);
}

/** The Maven the worktree was set up with, as set up, restored or copied: the plan to record (its bin on PATH) and the setup line's note. */
export function recordedMaven(plan: EcosystemPlan, worktree: string): { plan: EcosystemPlan; note?: string } {
  const record = readRecord<MavenRecord>(join(worktree, RECORD));
  const version = typeof record.version === 'string' && RELEASE_FOLDER.test(`apache-maven-${record.version}`) ? record.version : undefined;
  if (!version || !existsSync(join(worktree, inWorktree(version), 'bin', 'mvn'))) return { plan };
  return { plan: onMaven(plan, version), note: typeof record.note === 'string' ? record.note : undefined };
}

import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EcosystemPlan } from '../../../../host/dependencies/ecosystem-plan';
import { mavenRetry, recordedMaven, writeMavenRecord } from '../../../../host/dependencies/jvm/maven-enforcer';
import { mavenPlan } from '../../../../host/dependencies/jvm/maven-plan';
import { SetupFailed } from '../../../../host/dependencies/setup-failed';
import type { ShellCommandResult } from '../../../../host/shell/shell-command';
import { commitProject, writeFiles } from '../../../support/projects/real-projects';

const POM = '<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId><version>1</version></project>\n';
const DEBIAN = { maven: { mounts: [], globalSettings: '/usr/share/maven/conf/settings.xml' }, mirrors: [] };
/** What Maven 3.8.7 prints when commons-parent's enforcer stops it. */
const ENFORCER_FAILURE =
  '[INFO] --- maven-enforcer-plugin:3.6.1:enforce (enforce-maven-version) @ commons-cli ---\n' +
  '[ERROR] Rule 0: org.apache.maven.enforcer.rules.version.RequireMavenVersion failed with message:\n' +
  '[ERROR] Detected Maven Version: 3.8.7 is not in the allowed range [3.9,).\n[INFO] BUILD FAILURE\n';
const CENTRAL_RELEASES = 'releases: 3.8.8 3.9.0 3.9.11 3.9.16 3.10.2 4.0.0-rc-4';

const result = (output: string, exitCode = 0): ShellCommandResult => ({ exitCode, killedBy: null, timedOut: false, output, omittedBytes: 0, durationMs: 5 });

/** A project without the wrapper, its plan, a download cache, and a sandbox stand-in that answers as Maven Central would (or as `central` says). */
function setting(central: (args: string) => ShellCommandResult | undefined = () => undefined) {
  const worktree = commitProject('cli', { 'pom.xml': POM });
  const downloads = mkdtempSync(join(tmpdir(), 'dex-maven-downloads-'));
  const plan = mavenPlan(worktree, DEBIAN)!;
  const runs: EcosystemPlan[] = [];
  const run = async (what: EcosystemPlan) => {
    runs.push(what);
    const args = what.command.split(' maven-distribution ')[1];
    const answer = central(args);
    if (answer) return answer;
    if (args === 'releases') return result(`${CENTRAL_RELEASES}\n`);
    // The script's work: the distribution unpacked into the download cache.
    writeFiles(downloads, { [`maven/apache-maven-${args}/bin/mvn`]: '#!/bin/sh\n' });
    chmodSync(join(downloads, `maven/apache-maven-${args}/bin/mvn`), 0o755);
    return result('');
  };
  return { worktree, downloads, plan, runs, fetch: { worktree, downloads, run } };
}

describe("the Maven the project's enforcer asks for (docs/real-repositories.md#maven-and-gradle)", () => {
  it('fetches the newest 3.9 Central lists for [3.9,), into the download cache, and runs it from the worktree', async () => {
    const { worktree, downloads, plan, runs, fetch } = setting();
    const retry = (await mavenRetry(plan, ENFORCER_FAILURE, fetch))!;
    expect(runs.map((r) => r.command)).toEqual(['sh -c "$DEX_MAVEN_DISTRIBUTION" maven-distribution releases', 'sh -c "$DEX_MAVEN_DISTRIBUTION" maven-distribution 3.9.16']);
    // In setup's sandbox with Central's hosts, writing the download cache as the sandbox sees it.
    expect(runs[1]).toMatchObject({ hosts: plan.hosts, setupEnv: { DEX_DOWNLOADS: '/home/dex/.cache/dex-downloads', DEX_MAVEN_DISTRIBUTION: expect.stringContaining('.sha512') } });
    expect(existsSync(join(worktree, '.dex/maven/apache-maven-3.9.16/bin/mvn'))).toBe(true);
    expect(retry.plan.binDirs).toEqual(['.dex/maven/apache-maven-3.9.16/bin', ...plan.binDirs]);
    expect(retry.plan.command).toBe(plan.command);
    expect(retry.record).toEqual({ version: '3.9.16', note: 'Maven 3.9.16 from Maven Central: the enforcer asks [3.9,), the machine has 3.8.7' });
    expect(existsSync(join(downloads, 'maven/apache-maven-3.9.16/bin/mvn'))).toBe(true);
  });

  it('takes a Maven in the range from the download cache with nothing run, whatever Central lists now', async () => {
    const { downloads, plan, runs, fetch } = setting();
    mkdirSync(join(downloads, 'maven/apache-maven-3.9.11/bin'), { recursive: true });
    writeFileSync(join(downloads, 'maven/apache-maven-3.9.11/bin/mvn'), '');
    // A half-unpacked copy of another setup's is no Maven.
    mkdirSync(join(downloads, 'maven/apache-maven-3.9.16.AbC123/bin'), { recursive: true });
    const old = '[WARNING] Rule 0: org.apache.maven.plugins.enforcer.RequireMavenVersion failed with message:\nDetected Maven Version: 3.8.7 is not in the allowed range 3.9.0.\n';
    expect((await mavenRetry(plan, old, fetch))?.record.version).toBe('3.9.11');
    expect(runs).toEqual([]);
  });

  it('leaves any other failure, and a project with its own wrapper, as they are', async () => {
    const { plan, runs, fetch } = setting();
    expect(await mavenRetry(plan, '[ERROR] Failed to execute goal … Could not resolve dependencies', fetch)).toBeUndefined();
    const wrapped = commitProject('wrapped', { 'pom.xml': POM, mvnw: '#!/bin/sh\n', '.mvn/wrapper/maven-wrapper.properties': 'distributionUrl=https://repo.maven.apache.org/x.zip\n' });
    expect(await mavenRetry(mavenPlan(wrapped, DEBIAN)!, ENFORCER_FAILURE, { ...fetch, worktree: wrapped })).toBeUndefined();
    expect(runs).toEqual([]);
  });

  it('fails in one line naming the range, the machine\'s Maven and what was tried when none can be had', async () => {
    const failure = (central: Parameters<typeof setting>[0], output = ENFORCER_FAILURE) => {
      const { plan, fetch } = setting(central);
      return mavenRetry(plan, output, fetch).catch((err: unknown) => err as SetupFailed);
    };
    const unreachable = await failure((args) => (args === 'releases' ? result('curl: (56) CONNECT tunnel failed, response 403\n', 56) : undefined));
    expect(unreachable).toBeInstanceOf(SetupFailed);
    expect((unreachable as SetupFailed).message).toMatch(
      /^setup failed: maven: the enforcer asks \[3\.9,\), the machine has 3\.8\.7, and no Maven in it could be had: Maven Central's list of releases could not be read \(curl: \(56\) CONNECT tunnel failed, response 403\); none is in dex's download cache \(\/.+\/maven\)$/,
    );
    const unsatisfiable = await failure(undefined, ENFORCER_FAILURE.replace('[3.9,)', '[5,)'));
    expect((unsatisfiable as SetupFailed).message).toContain('the enforcer asks [5,), the machine has 3.8.7, and no Maven in it could be had: Maven Central lists no release in [5,) (its newest release: 3.10.2)');
    const tampered = await failure((args) => (args === '3.9.16' ? result('error: https://repo.maven.apache.org/…/apache-maven-3.9.16-bin.tar.gz does not match its .sha512\n', 1) : undefined));
    expect((tampered as SetupFailed).message).toContain('Maven 3.9.16 could not be fetched from Maven Central (error: https://repo.maven.apache.org/…/apache-maven-3.9.16-bin.tar.gz does not match its .sha512)');
  });

  it('a worktree set up, restored or copied runs the Maven its record names, when its copy is there', async () => {
    const { worktree, plan, fetch } = setting();
    expect(recordedMaven(plan, worktree)).toEqual({ plan });
    const retry = (await mavenRetry(plan, ENFORCER_FAILURE, fetch))!;
    await writeMavenRecord(worktree, retry.record);
    expect(recordedMaven(plan, worktree)).toEqual({ plan: retry.plan, note: retry.record.note });
    // A record naming anything but a release (a path) is not followed.
    writeFileSync(join(worktree, '.dex/maven/dex-maven.json'), JSON.stringify({ version: '../../../bin', note: 'x' }));
    expect(recordedMaven(plan, worktree)).toEqual({ plan });
  });
});

import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DependencyCache } from '../../../../host/dependencies/dependency-cache';
import { distributionHash, machineGradle, wantedGradle } from '../../../../host/dependencies/jvm/gradle-distribution';
import { gradlePlan } from '../../../../host/dependencies/jvm/gradle-plan';
import { prepareDependencies } from '../../../../host/dependencies/prepare-dependencies';
import { commitProject, git } from '../../../support/projects/real-projects';

const URL_8_5 = 'https://services.gradle.org/distributions/gradle-8.5-bin.zip';
/** A Gradle project with the wrapper, as `gradle init` writes it (the properties escape their colons). */
const PROJECT = {
  'settings.gradle.kts': 'rootProject.name = "greeter"\ninclude("lib")\n',
  'lib/build.gradle.kts': 'plugins { `java-library` }\n',
  'gradle/wrapper/gradle-wrapper.properties': `distributionBase=GRADLE_USER_HOME\ndistributionUrl=${URL_8_5.replace(/:/g, '\\:')}\nzipStorePath=wrapper/dists\n`,
};
const noMachineGradle = () => undefined;

describe('the Gradle plan', () => {
  it("finds the wrapper's distribution where the wrapper unpacked it: `dists/<name>/<base 36 of the URL's MD5>/gradle-8.5`", () => {
    const repo = commitProject('greeter', PROJECT);
    expect(wantedGradle(repo)).toEqual({ url: URL_8_5, name: 'gradle-8.5-bin' });
    // The folder the wrapper made on machines that ran it (their ~/.gradle/wrapper/dists).
    expect(distributionHash(URL_8_5)).toBe('5t9huq95ubn472n8rpzujfbqh');
    const userHome = mkdtempSync(join(tmpdir(), 'dex-gradle-home-'));
    const dist = join(userHome, 'wrapper', 'dists', 'gradle-8.5-bin', '5t9huq95ubn472n8rpzujfbqh', 'gradle-8.5');
    mkdirSync(join(dist, 'bin'), { recursive: true });
    writeFileSync(join(dist, 'bin', 'gradle'), '#!/bin/sh\n');
    chmodSync(join(dist, 'bin', 'gradle'), 0o755);
    const plan = gradlePlan(repo, userHome, noMachineGradle)!;
    expect(plan).toMatchObject({
      ecosystem: 'gradle',
      command: 'sh -c "$DEX_JVM_SETUP" jvm-setup gradle --no-daemon --console=plain --init-script .dex/gradle/dex-resolve-dependencies.gradle testClasses dexResolveDependencies',
      inputs: ['gradle/wrapper/gradle-wrapper.properties', 'lib/build.gradle.kts', 'settings.gradle.kts'],
      outputs: ['.dex/gradle'],
      scratch: ['.gradle', 'lib/build', 'build'],
      commandEnv: { GRADLE_USER_HOME: '{worktree}/.dex/gradle' },
      // The owner's distribution, read-only: never the rest of ~/.gradle (gradle.properties may hold credentials).
      binDirs: [join(dist, 'bin')],
      toolchainPaths: [dist],
    });
    expect(plan.unavailable).toBeUndefined();
  });

  it('falls back to the machine\'s `gradle`, and is no plan for a folder without a Gradle build or with a pom.xml', () => {
    const repo = commitProject('greeter', PROJECT);
    const machine = () => ({ binDir: '/opt/gradle/bin', mounts: ['/opt/gradle'] });
    expect(gradlePlan(repo, mkdtempSync(join(tmpdir(), 'dex-gradle-empty-')), machine)).toMatchObject({ binDirs: ['/opt/gradle/bin'], toolchainPaths: ['/opt/gradle'] });
    expect(gradlePlan(commitProject('plain', { 'README.md': '' }), '/nowhere', machine)).toBeUndefined();
    expect(gradlePlan(commitProject('both', { ...PROJECT, 'pom.xml': '<project/>' }), '/nowhere', machine)).toBeUndefined();
  });

  it.skipIf(machineGradle() !== undefined)('with neither, setup fails in one line: the distribution it wanted and where it looked', async () => {
    const repo = commitProject('greeter', PROJECT);
    const userHome = mkdtempSync(join(tmpdir(), 'dex-gradle-empty-'));
    const line = `the wrapper wants gradle-8.5-bin (${URL_8_5}), which is neither in ${userHome}/wrapper/dists/gradle-8.5-bin nor on this machine's PATH (\`gradle\`), and dex downloads no Gradle: run ./gradlew once on this machine, or install Gradle`;
    expect(gradlePlan(repo, userHome)!.unavailable).toBe(line);
    const noWrapper = commitProject('bare', { 'build.gradle': 'plugins { id "java" }\n' });
    expect(gradlePlan(noWrapper, userHome)!.unavailable).toBe('the project has no Gradle wrapper (gradle/wrapper/gradle-wrapper.properties) and this machine no `gradle` on PATH: install Gradle');
    // Through setup itself, with this worker's own Gradle home: nothing runs, the line is the failure.
    const worktree = join(mkdtempSync(join(tmpdir(), 'dex-gradle-wt-')), 'wt');
    git(noWrapper, 'worktree', 'add', '-q', '--detach', worktree, 'HEAD');
    const setup = prepareDependencies({ worktree, cache: new DependencyCache(mkdtempSync(join(tmpdir(), 'dex-gradle-cache-'))), downloads: mkdtempSync(join(tmpdir(), 'dex-dl-')), command: { timeoutMs: 60_000 } });
    await expect(setup).rejects.toMatchObject({ name: 'SetupFailed', message: `setup failed: gradle: ${gradlePlan(noWrapper, userHome)!.unavailable}`, tail: '' });
  });
});

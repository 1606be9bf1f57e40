import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gitPaths, present, type EcosystemPlan } from '../ecosystem-plan';
import { machineGradle, ownerDistribution, ownerGradleHome, wantedGradle, type FoundGradle } from './gradle-distribution';
import { JVM_PROCESSES, JVM_SETUP_ENV, jvmSetupVersion, withJvmSetup } from './jvm-setup';

/** Files that make a folder a Gradle build. */
const BUILD_FILES = ['build.gradle', 'build.gradle.kts', 'settings.gradle', 'settings.gradle.kts'];
/** GRADLE_USER_HOME in the worktree: the dependency caches, kept as setup's output. */
const HOME = '.dex/gradle';
/** The init script setup runs with (beside this file): it resolves every configuration, a test run's too. */
const INIT = readFileSync(join(__dirname, 'resolve-dependencies.gradle'), 'utf8');
const INIT_FILE = `${HOME}/dex-resolve-dependencies.gradle`;
/** Where Gradle's plugins and most libraries come from; Google's Maven for Android. */
const HOSTS = ['plugins.gradle.org', 'plugins-artifacts.gradle.org', 'repo.maven.apache.org', 'repo1.maven.org', 'dl.google.com', 'maven.google.com'];

/** Every Gradle build file git tracks or would add: each project's `build/` is scratch, and all of them key the cache. */
function buildFiles(dir: string): string[] {
  const found = gitPaths(dir, ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...BUILD_FILES.map((name) => `:(glob)**/${name}`), ':(glob)**/*.versions.toml', 'gradle/wrapper/gradle-wrapper.properties']);
  return [...new Set(found ?? present(dir, BUILD_FILES))].filter((path) => !/(^|\/)build\/|^\.dex\//.test(path)).sort();
}

/** Why the machine has no Gradle for the project: the distribution the wrapper wants, and where dex looked for it. */
function noGradle(dir: string, gradleUserHome: string): string {
  const wanted = wantedGradle(dir);
  if (!wanted) return 'the project has no Gradle wrapper (gradle/wrapper/gradle-wrapper.properties) and this machine no `gradle` on PATH: install Gradle';
  const dists = join(gradleUserHome, 'wrapper', 'dists', wanted.name);
  return `the wrapper wants ${wanted.name} (${wanted.url}), which is neither in ${dists} nor on this machine's PATH (\`gradle\`), and dex downloads no Gradle: run ./gradlew once on this machine, or install Gradle`;
}

/**
 * The Gradle plan of `dir` (`build.gradle(.kts)` or `settings.gradle(.kts)`; a project that also
 * has a pom.xml is Maven's), docs/real-repositories.md#maven-and-gradle. Gradle itself comes from
 * the owner's unpacked copy of what the wrapper wants, else the machine's `gradle`: setup resolves
 * every configuration into a Gradle home in the worktree, cached by the build files, and verify
 * runs offline from it. Without either, the plan says why and setup fails with that line.
 */
export function gradlePlan(dir: string, gradleUserHome = ownerGradleHome(), machine: () => FoundGradle | undefined = machineGradle): EcosystemPlan | undefined {
  if (!present(dir, BUILD_FILES).length || present(dir, ['pom.xml']).length) return undefined;
  const wanted = wantedGradle(dir);
  const gradle = (wanted && ownerDistribution(wanted, gradleUserHome)) || machine();
  const files = buildFiles(dir);
  const env = { GRADLE_USER_HOME: `{worktree}/${HOME}` };
  return {
    ecosystem: 'gradle',
    prepare: `mkdir -p ${HOME} && printf '%s' "$DEX_GRADLE_INIT" >${INIT_FILE}`,
    command: withJvmSetup(`gradle --no-daemon --console=plain --init-script ${INIT_FILE} testClasses dexResolveDependencies`),
    inputs: files,
    outputs: [HOME],
    scratch: [...new Set(['.gradle', ...files.filter((f) => /\.gradle(\.kts)?$/.test(f)).map((f) => join(dirname(f), 'build'))])],
    hosts: HOSTS,
    toolchain: [`echo gradle ${gradle?.binDir ?? 'none'}`, 'java -version 2>&1 | head -1', jvmSetupVersion(INIT)],
    setupEnv: { ...env, ...JVM_SETUP_ENV, DEX_GRADLE_INIT: INIT },
    commandEnv: env,
    binDirs: gradle ? [gradle.binDir] : [],
    toolchainPaths: gradle?.mounts ?? [],
    processes: JVM_PROCESSES,
    ...(gradle ? {} : { unavailable: noGradle(dir, gradleUserHome) }),
  };
}

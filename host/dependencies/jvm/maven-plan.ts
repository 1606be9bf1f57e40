import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gitPaths, present, readText, type EcosystemPlan } from '../ecosystem-plan';
import { JVM_PROCESSES, JVM_SETUP_ENV, jvmSetupVersion, withJvmSetup } from './jvm-setup';
import { machineMaven, type MachineMaven } from './machine-maven';
import { mirrorsXml, ownerMirrors, pomRepositoryHosts, type MavenMirror } from './maven-settings';

/** Maven Central, where dependencies, plugins and the wrapper's Maven come from. */
const CENTRAL = ['repo.maven.apache.org', 'repo1.maven.org'];

/**
 * Maven's home in the worktree (`user.home` of its JVM, and HOME of the wrapper's script): its
 * `.m2` holds the local repository, the wrapper's Maven and the settings setup wrote; beside it,
 * the Maven an enforcer asked for (maven-enforcer.ts). Cached as a whole, never committed.
 */
export const DEX_MAVEN_HOME = '.dex/maven';
const WRAPPER_PROPERTIES = '.mvn/wrapper/maven-wrapper.properties';
const WRAPPER_JAR = '.mvn/wrapper/maven-wrapper.jar';

/**
 * Setup's run of the lifecycle up to `test`: it compiles, and surefire starts its provider (which
 * it resolves only with a test class to run) with a filter no test method matches, so every
 * dependency and plugin `test` needs is fetched and no test runs. `failIfNoTests` is older surefire's name.
 */
const FETCH = "-B test '-Dtest=*#dexNoTest' -Dsurefire.failIfNoSpecifiedTests=false -DfailIfNoTests=false";
/** No line per file downloaded: the report keeps what went wrong. */
const QUIET_TRANSFERS = '-Dorg.slf4j.simpleLogger.log.org.apache.maven.cli.transfer.Slf4jMavenTransferListener=warn';

/** What of the machine and the owner a Maven plan uses; found on this machine unless a test gives its own. */
interface MavenMachine {
  /** The machine's `mvn`, when it has one. */
  maven?: MachineMaven;
  /** The owner's mirrors (settings.xml). */
  mirrors: MavenMirror[];
}

function thisMachine(): MavenMachine {
  const maven = machineMaven();
  return { maven, mirrors: ownerMirrors(maven?.globalSettings) };
}

/** True when the project runs Maven through its wrapper: `mvnw` beside the properties that name the Maven it wants. */
const usesWrapper = (dir: string): boolean => existsSync(join(dir, 'mvnw')) && existsSync(join(dir, WRAPPER_PROPERTIES));

/** How to run the project's Maven: `./mvnw` (`sh mvnw` when git lost its mode), else the machine's `mvn`. */
export function mavenCommand(dir: string): string {
  if (!usesWrapper(dir)) return 'mvn';
  return statSync(join(dir, 'mvnw')).mode & 0o111 ? './mvnw' : 'sh mvnw';
}

/** Every pom.xml git tracks or would add, the root's first: a multi-module build's modules, not build output. */
function poms(dir: string): string[] {
  const found = gitPaths(dir, ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ':(glob)**/pom.xml']) ?? [];
  return ['pom.xml', ...[...new Set(found)].filter((path) => path !== 'pom.xml' && !/(^|\/)target\/|^\.dex\//.test(path)).sort()];
}

/** The host names of the wrapper's downloads (its Maven, its jar), which a company may mirror; never with a port (pomRepositoryHosts says why). */
function wrapperHosts(dir: string): string[] {
  const text = readText(join(dir, WRAPPER_PROPERTIES)) ?? '';
  return [...text.matchAll(/^\s*(?:distributionUrl|wrapperUrl)\s*=\s*(\S+)/gm)].flatMap((m) => {
    try {
      return [new URL(m[1].replace(/\\:/g, ':')).hostname];
    } catch {
      return [];
    }
  });
}

/**
 * The Maven plan of `dir`, for any `pom.xml` project, single or multi-module
 * (docs/real-repositories.md#maven-and-gradle). The project's wrapper, or the machine's `mvn`,
 * runs the lifecycle up to `test` with a local repository in the worktree, cached by the poms'
 * content; verify then runs offline from it. The owner's mirrors reach it through a settings file
 * of mirrors alone. Each module's `target/` is the build's scratch.
 */
export function mavenPlan(dir: string, given?: MavenMachine): EcosystemPlan | undefined {
  if (!existsSync(join(dir, 'pom.xml'))) return undefined;
  const machine = given ?? thisMachine();
  const wrapper = usesWrapper(dir);
  const maven = wrapper ? undefined : machine.maven;
  const modules = poms(dir);
  const mirrors = mirrorsXml(machine.mirrors);
  const jarTracked = (gitPaths(dir, ['ls-files', '-z', '--', WRAPPER_JAR]) ?? []).length > 0;
  const env: Record<string, string> = {
    MAVEN_OPTS: `-Duser.home={worktree}/${DEX_MAVEN_HOME} -Dmaven.repo.local={worktree}/${DEX_MAVEN_HOME}/.m2/repository`,
    // The wrapper's Maven: older scripts put it in MAVEN_USER_HOME, newer ones in $HOME/.m2.
    ...(wrapper ? { HOME: `{worktree}/${DEX_MAVEN_HOME}`, MAVEN_USER_HOME: `{worktree}/${DEX_MAVEN_HOME}/.m2` } : {}),
  };
  const hosts = [...CENTRAL, ...machine.mirrors.filter((m) => !m.blocked).map((m) => new URL(m.url).host), ...pomRepositoryHosts(modules.map((pom) => readText(join(dir, pom)) ?? '')), ...wrapperHosts(dir)];
  return {
    ecosystem: 'maven',
    command: withJvmSetup(`${mavenCommand(dir)} ${FETCH}`),
    inputs: [...modules, ...present(dir, [WRAPPER_PROPERTIES, '.mvn/maven.config', '.mvn/extensions.xml'])],
    // An older wrapper script downloads its jar into the project: setup's, never the task's work.
    outputs: [DEX_MAVEN_HOME, ...(wrapper && !jarTracked ? [WRAPPER_JAR] : [])],
    scratch: [...new Set(modules.map((pom) => join(dirname(pom), 'target')))],
    hosts: [...new Set(hosts)],
    toolchain: [wrapper ? 'java -version 2>&1 | head -1' : 'mvn --version 2>&1 | head -3', jvmSetupVersion(mirrors)],
    setupEnv: {
      ...env,
      ...JVM_SETUP_ENV,
      MAVEN_OPTS: `${env.MAVEN_OPTS} ${QUIET_TRANSFERS}`,
      DEX_MAVEN_MIRRORS: mirrors,
      DEX_MAVEN_SETTINGS_FILE: `{worktree}/${DEX_MAVEN_HOME}/.m2/settings.xml`,
    },
    commandEnv: env,
    binDirs: maven?.binDir ? [maven.binDir] : [],
    toolchainPaths: maven?.mounts ?? [],
    processes: JVM_PROCESSES,
    ...(wrapper || maven ? {} : { unavailable: 'the project has no Maven wrapper (./mvnw) and this machine no `mvn` on PATH: install Maven, or add the wrapper (`mvn wrapper:wrapper`)' }),
  };
}

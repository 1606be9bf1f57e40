/**
 * Maven with nothing configured (docs/real-repositories.md#maven-and-gradle): setup fetches a
 * project's dependencies and plugins from Maven Central into a repository in the worktree, cached
 * by the poms; verify is the detected `mvn -B -o test`, offline; Surefire's failed test is the
 * cause the agent reads. A reactor's modules resolve each other from their build, never a
 * repository; the owner's mirror behind a CA of its own is reached with that CA only in the bundle.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transcriptSteps } from '../../../client/render/run-log';
import { workflowKeyPrefix } from '../../../core/run/ids';
import { DEFAULT_SANDBOX } from '../../../core/safety/sandbox-policy';
import type { TaskResult } from '../../../core/task/task-types';
import { dexCacheDir } from '../../../host/cache-dir';
import { DependencyCache } from '../../../host/dependencies/dependency-cache';
import { prepareDependencies } from '../../../host/dependencies/prepare-dependencies';
import { SetupFailed } from '../../../host/dependencies/setup-failed';
import { runAgentCommand } from '../../../host/sandbox/run-agent-command';
import { completionTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { fileAt } from '../../support/env/dev-server-env';
import { fixTurns, git } from '../../support/projects/real-projects';
import { CALCULATOR_FIX, mavenProject, multiModuleMavenProject, startMavenMirror, type MavenMirror } from '../../support/projects/real-projects-jvm';
import { makeCa, type TestCa } from '../../support/projects/support-private-registry';

// The first task claims it is done without fixing: verify fails on the planted bug, which shows the suite ran.
const CASSETTE = [completionTurn('M-maven', { status: 'complete', summary: 'done?' }), ...fixTurns('M-maven', CALCULATOR_FIX), ...fixTurns('M-maven-again', CALCULATOR_FIX)];
const dex = useDexEnvironment({ server: 'dev', cassette: CASSETTE, queue: 'dex-it-maven' });

/** Each test's bound: a cold Maven setup downloads a few hundred files and starts several JVMs, minutes on a loaded machine. */
const MAVEN_TIME = 20 * 60_000;

/** The paths the commit `sha` of `repo` holds. */
const filesAt = (repo: string, sha: string) => execFileSync('git', ['ls-tree', '-r', '--name-only', sha], { cwd: repo, encoding: 'utf8' }).split('\n').filter(Boolean);
const PROJECT_FILES = ['pom.xml', 'src/main/java/demo/Calculator.java', 'src/test/java/demo/CalculatorTest.java'];

/** The task's verify steps as `dex log` shows them, in order. */
async function verifySteps(workflowId: string) {
  const store = dex.worker.deps.store;
  const steps = [];
  for (const t of await store.listTranscripts(workflowKeyPrefix(workflowId))) steps.push(...(await transcriptSteps(store, t)));
  return steps.flatMap((s) => (s.kind === 'verify' ? [s] : []));
}

describe('a Maven project as its owner has it: a pom.xml, JUnit 5 from Maven Central, no .gitignore, no dex.config.yaml', () => {
  let repo: string;
  beforeAll(() => {
    repo = mavenProject().repo;
  });
  const withoutVerify = () => ({ repoPath: repo, verify: [], detectVerify: true });

  it('setup fetches what `mvn test` needs, verify is `mvn -B -o test` offline, the fix lands without target/ or .dex/', async () => {
    const { handle } = await dex.startTask('M-maven', withoutVerify());
    const result = (await handle.result()) as TaskResult;
    expect(result.state, result.error).toBe('completed');
    expect(result.verifyDetected).toBe('mvn -B -o test (detected)');
    expect(result.verifyPassed).toBe(true);
    expect(result.setup).toMatch(/^maven installed \d+\.\d s$/);
    const [failed, passed] = await verifySteps(handle.workflowId);
    expect(failed).toMatchObject({ passed: false, commands: ['mvn -B -o test'], cause: '[ERROR] CalculatorTest.adds:10 expected: <4> but was: <5>' });
    expect(passed).toMatchObject({ passed: true, commands: ['mvn -B -o test'] });
    expect(fileAt(repo, result.commit!, CALCULATOR_FIX.path)).toContain('return a + b;');
    expect(filesAt(repo, result.commit!)).toEqual(PROJECT_FILES);
  }, MAVEN_TIME);

  it('a second task on the same poms takes the repository from the cache: no Maven runs at setup, verify runs offline', async () => {
    const { handle } = await dex.startTask('M-maven-again', withoutVerify());
    const result = (await handle.result()) as TaskResult;
    expect(result.state, result.error).toBe('completed');
    expect(result.setup).toMatch(/^maven from cache \d+\.\d s$/);
    expect(result.verifyPassed).toBe(true);
    expect(filesAt(repo, result.commit!)).toEqual(PROJECT_FILES);
  }, MAVEN_TIME);
});

describe('Maven set up by its functions', () => {
  const cache = new DependencyCache(mkdtempSync(join(tmpdir(), 'dex-maven-cache-')));
  const downloads = join(mkdtempSync(join(tmpdir(), 'dex-maven-downloads-')), '.downloads');
  const worktreeOf = (project: string) => {
    const worktree = join(mkdtempSync(join(tmpdir(), 'dex-maven-wt-')), 'wt');
    git(project, 'worktree', 'add', '-q', '--detach', worktree, 'HEAD');
    return worktree;
  };
  const setUp = (worktree: string, into = cache) => prepareDependencies({ worktree, cache: into, downloads, command: { timeoutMs: 15 * 60_000 } });
  const mvnTest = (worktree: string, command = 'mvn -B -o test') => runAgentCommand(command, worktree, DEFAULT_SANDBOX, { timeoutMs: 10 * 60_000, outputLimitBytes: 256 * 1024 });

  it("a reactor of two modules, one using the other: verify passes offline, and neither module's artifact is ever in the repository", async () => {
    const worktree = worktreeOf(multiModuleMavenProject());
    const { steps } = await setUp(worktree);
    expect(steps).toMatchObject([{ ecosystem: 'maven', source: 'installed' }]);
    const run = await mvnTest(worktree);
    expect(run.exitCode, run.output.slice(-3000)).toBe(0);
    expect(run.output).toMatch(/Reactor Summary[\s\S]*shop[\s\S]*core[\s\S]*app[\s\S]*BUILD SUCCESS/);
    expect(run.output.match(/Tests run: 1, Failures: 0, Errors: 0, Skipped: 0$/gm)).toHaveLength(2);
    expect(existsSync(join(worktree, '.dex/maven/.m2/repository/org/junit/jupiter/junit-jupiter-api'))).toBe(true);
    expect(existsSync(join(worktree, '.dex/maven/.m2/repository/demo'))).toBe(false);
  }, MAVEN_TIME);

  describe("the owner's mirror, behind a CA of its own that only the machine's bundle holds", () => {
    let ca: TestCa;
    let mirror: MavenMirror;
    let home: string;
    const saved = { HOME: process.env.HOME, SSL_CERT_FILE: process.env.SSL_CERT_FILE, DEX_CACHE: process.env.DEX_CACHE };
    const restore = () => {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    };
    beforeAll(async () => {
      ca = makeCa();
      mirror = await startMavenMirror(ca);
      home = mkdtempSync(join(tmpdir(), 'dex-maven-owner-'));
      mkdirSync(join(home, '.m2'));
      // As a company's settings are: a mirror of everything, and the credentials of a server setup must never see.
      const settings = `<settings>\n  <servers><server><id>company</id><username>ana</username><password>s3cret-pass</password></server></servers>\n  <mirrors><mirror><id>company</id><mirrorOf>*</mirrorOf><url>https://127.0.0.1:${mirror.port}/maven2</url></mirror></mirrors>\n</settings>\n`;
      writeFileSync(join(home, '.m2', 'settings.xml'), settings);
    });
    afterAll(async () => {
      restore();
      await mirror?.close();
    });
    /** Setup as the owner whose home and CA bundle these are (dex's own cache, where its bubblewrap is, stays the worker's). */
    const asOwner = async <T>(bundle: string, fn: () => Promise<T>): Promise<T> => {
      Object.assign(process.env, { DEX_CACHE: dexCacheDir(), HOME: home, SSL_CERT_FILE: bundle });
      try {
        return await fn();
      } finally {
        restore();
      }
    };

    it('setup reaches the mirror through the sandbox with a trust store made of the bundle; the settings it writes hold the mirror, not the password', async () => {
      const worktree = worktreeOf(mavenProject().repo);
      const { steps } = await asOwner(ca.bundleWithCa, () => setUp(worktree));
      expect(steps).toMatchObject([{ ecosystem: 'maven', source: 'installed' }]);
      expect(mirror.served()).toBeGreaterThan(10);
      const written = readFileSync(join(worktree, '.dex/maven/.m2/settings.xml'), 'utf8');
      expect(written).toContain(`<url>https://127.0.0.1:${mirror.port}/maven2</url>`);
      expect(written).not.toContain('s3cret-pass');
      // Verify reads the same settings: what came from the mirror is found offline under the mirror's id.
      const run = await mvnTest(worktree, `mvn -B -o test; test ! -e ${home}/.m2/settings.xml`);
      // The owner's own settings are nowhere in the sandbox.
      expect(run.exitCode).toBe(0);
      expect(run.output).toContain('CalculatorTest.adds:10 expected: <4> but was: <5>');
      expect(run.output).not.toMatch(/has not been downloaded from it before|Cannot access/);
    }, MAVEN_TIME);

    it('without the CA in the bundle, setup fails in one line naming the certificate problem', async () => {
      const worktree = worktreeOf(mavenProject().repo);
      // A cache of its own: the first test's entry (same poms, same mirror) would be restored, and nothing fetched.
      const empty = new DependencyCache(mkdtempSync(join(tmpdir(), 'dex-maven-cache-')));
      const failure = await asOwner('/etc/ssl/certs/ca-certificates.crt', () => setUp(worktree, empty)).catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(SetupFailed);
      expect((failure as SetupFailed).message).toMatch(/^setup failed: maven `.*` exited 1 \(network only to repo\.maven\.apache\.org, repo1\.maven\.org, 127\.0\.0\.1:\d+\): .*PKIX path building failed/);
    }, MAVEN_TIME);
  });
});

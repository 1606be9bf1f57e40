/**
 * A Maven project whose enforcer asks for a newer Maven than the machine's
 * (docs/real-repositories.md#maven-and-gradle): setup fails on the enforcer with the machine's
 * `mvn`, fetches the newest 3.9 from Maven Central through the sandbox's proxy (checked against its
 * .sha512) into the download cache, and installs again with it; verify runs the same Maven. A second
 * setup takes it from the cache, never from Central again.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX } from '../../../core/safety/sandbox-policy';
import { DependencyCache } from '../../../host/dependencies/dependency-cache';
import { prepareDependencies } from '../../../host/dependencies/prepare-dependencies';
import { runAgentCommand } from '../../../host/sandbox/run-agent-command';
import { git } from '../../support/projects/real-projects';
import { mavenProject } from '../../support/projects/real-projects-jvm';

/** Each test's bound: Maven's runs fetch a few hundred files and start several JVMs, minutes on a loaded machine. */
const MAVEN_TIME = 20 * 60_000;

/** The machine's Maven, which the enforcer turns away. */
const machineMaven = /Apache Maven (\S+)/.exec(execFileSync('mvn', ['-B', '--version'], { encoding: 'utf8' }))![1];

describe("a project whose enforcer asks for Maven [3.9,), on a machine whose `mvn` is older", () => {
  const downloads = join(mkdtempSync(join(tmpdir(), 'dex-maven-enforcer-')), '.downloads');
  const cache = new DependencyCache(mkdtempSync(join(tmpdir(), 'dex-maven-enforcer-cache-')));
  let project: string;
  beforeAll(() => {
    project = mavenProject({ mavenRange: '[3.9,)' }).repo;
  });
  const worktree = () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'dex-maven-enforcer-wt-')), 'wt');
    git(project, 'worktree', 'add', '-q', '--detach', dir, 'HEAD');
    return dir;
  };
  const setUp = (dir: string, into = cache) => prepareDependencies({ worktree: dir, cache: into, downloads, command: { timeoutMs: 15 * 60_000 } });
  const run = (dir: string, command: string) => runAgentCommand(command, dir, DEFAULT_SANDBOX, { timeoutMs: 10 * 60_000, outputLimitBytes: 256 * 1024 });
  const NOTE = new RegExp(`^Maven (3\\.9\\.\\d+) from Maven Central: the enforcer asks \\[3\\.9,\\), the machine has ${machineMaven.replace(/\./g, '\\.')}$`);

  it('setup installs with the newest 3.9 from Maven Central, and verify runs it: the planted bug fails the suite, past the enforcer', async () => {
    expect(machineMaven).toMatch(/^3\.[0-8]\./);
    const dir = worktree();
    const { steps, report } = await setUp(dir);
    expect(steps).toMatchObject([{ ecosystem: 'maven', source: 'installed', note: expect.stringMatching(NOTE) }]);
    const fetched = NOTE.exec(steps[0].note!)![1];
    expect(report).toContain(`Detected Maven Version: ${machineMaven} is not in the allowed range [3.9,).`);
    expect(report).toContain(`maven-distribution ${fetched}\n(exit code 0,`);
    expect(readdirSync(join(downloads, 'maven'))).toEqual([`apache-maven-${fetched}`]);
    const verify = await run(dir, 'mvn -B --version; mvn -B -o test');
    expect(verify.output).toContain(`Apache Maven ${fetched}`);
    expect(verify.output).toContain('CalculatorTest.adds:10 expected: <4> but was: <5>');
    expect(verify.output).not.toContain('Detected Maven Version');
  }, MAVEN_TIME);

  it('a second worktree of the same poms is restored with that Maven; one of a new cache installs with it again, fetching nothing', async () => {
    const restored = worktree();
    const { steps } = await setUp(restored);
    expect(steps).toMatchObject([{ ecosystem: 'maven', source: 'cache', note: expect.stringMatching(NOTE) }]);
    const fetched = NOTE.exec(steps[0].note!)![1];
    expect((await run(restored, 'mvn -B --version')).output).toContain(`Apache Maven ${fetched}`);
    const again = await setUp(worktree(), new DependencyCache(mkdtempSync(join(tmpdir(), 'dex-maven-enforcer-cache-'))));
    expect(again.steps).toMatchObject([{ ecosystem: 'maven', source: 'installed', note: steps[0].note }]);
    expect(again.report).toContain('is not in the allowed range [3.9,)');
    expect(again.report).not.toContain('maven-distribution');
  }, MAVEN_TIME);
});

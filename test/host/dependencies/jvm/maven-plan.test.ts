import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mavenPlan } from '../../../../host/dependencies/jvm/maven-plan';
import { commitProject, writeFiles } from '../../../support/projects/real-projects';

const POM = '<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId><version>1</version></project>\n';
/** A machine with Debian's Maven: on the sandbox's PATH, its m2.conf and logging in /etc/maven. */
const DEBIAN = { maven: { mounts: ['/etc/maven/logging', '/etc/maven/m2.conf'], globalSettings: '/usr/share/maven/conf/settings.xml' }, mirrors: [] };

describe('the Maven plan', () => {
  it('a pom.xml project runs the lifecycle to `test` with no test run, a repository in the worktree cached by the pom, target/ as scratch', () => {
    const plan = mavenPlan(commitProject('one', { 'pom.xml': POM }), DEBIAN)!;
    expect(plan).toMatchObject({
      ecosystem: 'maven',
      command: `sh -c "$DEX_JVM_SETUP" jvm-setup mvn -B test '-Dtest=*#dexNoTest' -Dsurefire.failIfNoSpecifiedTests=false -DfailIfNoTests=false`,
      inputs: ['pom.xml'],
      outputs: ['.dex/maven'],
      scratch: ['target'],
      hosts: ['repo.maven.apache.org', 'repo1.maven.org'],
      toolchain: ['mvn --version 2>&1 | head -3', expect.stringMatching(/^echo jvm-setup \w{12} \w{12}$/)],
      binDirs: [],
      toolchainPaths: ['/etc/maven/logging', '/etc/maven/m2.conf'],
      // Maven's JVM, Surefire's fork and a suite's threads: more than the sandbox's default 256.
      processes: 4096,
    });
    expect(plan.commandEnv).toEqual({ MAVEN_OPTS: '-Duser.home={worktree}/.dex/maven -Dmaven.repo.local={worktree}/.dex/maven/.m2/repository' });
    // Setup's own: the settings file it writes (its proxy, the owner's mirrors), and no line per download.
    expect(plan.setupEnv).toMatchObject({ DEX_MAVEN_SETTINGS_FILE: '{worktree}/.dex/maven/.m2/settings.xml', DEX_MAVEN_MIRRORS: '', MAVEN_OPTS: expect.stringContaining('transfer.Slf4jMavenTransferListener=warn') });
    expect(plan.unavailable).toBeUndefined();
    expect(mavenPlan(commitProject('none', { 'build.xml': '<project/>' }), DEBIAN)).toBeUndefined();
  });

  it("keys a reactor by every module's pom and .mvn's settings, never a pom under target/; each module's target/ is scratch", () => {
    const repo = commitProject('reactor', { 'pom.xml': POM, 'core/pom.xml': POM, 'app/pom.xml': POM, '.mvn/maven.config': '-T1C\n', '.mvn/extensions.xml': '<extensions/>\n', '.gitignore': 'target/\n' });
    writeFiles(repo, { 'web/pom.xml': POM, 'core/target/classes/META-INF/maven/g/a/pom.xml': POM });
    const plan = mavenPlan(repo, DEBIAN)!;
    expect(plan.inputs).toEqual(['pom.xml', 'app/pom.xml', 'core/pom.xml', 'web/pom.xml', '.mvn/maven.config', '.mvn/extensions.xml']);
    expect(plan.scratch).toEqual(['target', 'app/target', 'core/target', 'web/target']);
  });

  it("runs the project's wrapper, its Maven kept in the worktree's home, the jar an older script downloads kept out of commits", () => {
    const repo = commitProject('wrapped', {
      'pom.xml': POM,
      mvnw: '#!/bin/sh\n',
      '.mvn/wrapper/maven-wrapper.properties': 'distributionUrl=https\\://maven.corp.example\\:8443/apache-maven-3.9.9-bin.zip\nwrapperUrl=https://repo.maven.apache.org/maven2/w.jar\n',
    });
    chmodSync(join(repo, 'mvnw'), 0o755);
    const plan = mavenPlan(repo, { mirrors: [] })!;
    expect(plan.command).toContain('jvm-setup ./mvnw -B test');
    expect(plan.inputs).toEqual(['pom.xml', '.mvn/wrapper/maven-wrapper.properties']);
    expect(plan.outputs).toEqual(['.dex/maven', '.mvn/wrapper/maven-wrapper.jar']);
    // A host the project names is never opened with its port: no pom or properties file reaches an address of this host.
    expect(plan.hosts).toEqual(['repo.maven.apache.org', 'repo1.maven.org', 'maven.corp.example']);
    expect(plan.commandEnv).toMatchObject({ HOME: '{worktree}/.dex/maven', MAVEN_USER_HOME: '{worktree}/.dex/maven/.m2' });
    expect(plan.toolchain[0]).toBe('java -version 2>&1 | head -1');
    expect(plan.unavailable).toBeUndefined();
    // Checked out without its mode (made on Windows): run by sh.
    chmodSync(join(repo, 'mvnw'), 0o644);
    expect(mavenPlan(repo, { mirrors: [] })!.command).toContain('jvm-setup sh mvnw -B test');
  });

  it("takes the owner's mirrors (their hosts, with a port, are the owner's to open) and the poms' repositories", () => {
    const pom = POM.replace('</project>', '<repositories><repository><id>j</id><url>https://jitpack.io:443/x</url></repository></repositories><!-- <repositories><repository><url>https://old.example</url></repository></repositories> --></project>');
    const mirrors = [
      { id: 'company', mirrorOf: '*', url: 'https://nexus.corp.example:8443/maven2/' },
      { id: 'maven-default-http-blocker', mirrorOf: 'external:http:*', url: 'http://0.0.0.0/', blocked: true },
    ];
    const plan = mavenPlan(commitProject('mirrored', { 'pom.xml': pom }), { ...DEBIAN, mirrors })!;
    expect(plan.hosts).toEqual(['repo.maven.apache.org', 'repo1.maven.org', 'nexus.corp.example:8443', 'jitpack.io']);
    expect(plan.setupEnv.DEX_MAVEN_MIRRORS).toBe(
      '  <mirrors>\n    <mirror><id>company</id><mirrorOf>*</mirrorOf><url>https://nexus.corp.example:8443/maven2/</url></mirror>\n' +
        '    <mirror><id>maven-default-http-blocker</id><mirrorOf>external:http:*</mirrorOf><url>http://0.0.0.0/</url><blocked>true</blocked></mirror>\n  </mirrors>\n',
    );
    // Other mirrors, another key.
    expect(plan.toolchain[1]).not.toBe(mavenPlan(commitProject('plain', { 'pom.xml': pom }), DEBIAN)!.toolchain[1]);
  });

  it('says in one line why it cannot run on a machine without `mvn` for a project without the wrapper', () => {
    const plan = mavenPlan(commitProject('nomvn', { 'pom.xml': POM }), { mirrors: [] })!;
    expect(plan.unavailable).toBe('the project has no Maven wrapper (./mvnw) and this machine no `mvn` on PATH: install Maven, or add the wrapper (`mvn wrapper:wrapper`)');
  });
});

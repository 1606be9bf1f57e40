import { chmodSync, existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withToolchains } from '../../../../host/dependencies/ecosystems';
import { hostToolchains } from '../../../../host/dependencies/host-toolchains';
import { jdkLinkedFolders } from '../../../../host/dependencies/jvm/java-home';

/** A JDK in a folder of its own whose `java` says where it is, as `java -XshowSettings:properties` does: on stderr. */
function fakeJdk(root: string, name: string): string {
  const home = join(root, name);
  mkdirSync(join(home, 'bin'), { recursive: true });
  writeFileSync(join(home, 'bin', 'java'), `#!/bin/sh\necho "Property settings:" >&2\necho "    java.home = ${home}" >&2\necho 'openjdk version "21"' >&2\n`);
  chmodSync(join(home, 'bin', 'java'), 0o755);
  return home;
}

describe("the owner's JDK", () => {
  const saved = { PATH: process.env.PATH, JAVA_HOME: process.env.JAVA_HOME };
  afterEach(() => {
    process.env.PATH = saved.PATH;
    if (saved.JAVA_HOME === undefined) delete process.env.JAVA_HOME;
    else process.env.JAVA_HOME = saved.JAVA_HOME;
  });

  it("is JAVA_HOME's when set, as Maven's and Gradle's scripts pick it, else the PATH's java; only for a Maven or Gradle project", () => {
    const root = mkdtempSync(join(tmpdir(), 'dex-jdks-'));
    const onPath = fakeJdk(root, 'jdk-17');
    const chosen = fakeJdk(root, 'jdk-21');
    process.env.PATH = `${join(onPath, 'bin')}:/usr/bin:/bin`;
    delete process.env.JAVA_HOME;
    expect(hostToolchains(root, ['maven'])).toEqual({ javaHome: onPath });
    process.env.JAVA_HOME = chosen;
    expect(hostToolchains(root, ['gradle'])).toEqual({ javaHome: chosen });
    expect(hostToolchains(root, ['npm'])).not.toHaveProperty('javaHome');
    const plan = withToolchains({ ecosystem: 'maven', binDirs: [], toolchainPaths: [] } as never, { javaHome: chosen });
    expect(plan).toMatchObject({ binDirs: [join(chosen, 'bin')], toolchainPaths: [chosen] });
  });

  it('mounts the folders its configuration links out into, the fewest that hold them all', () => {
    const root = mkdtempSync(join(tmpdir(), 'dex-jdk-links-'));
    const etc = join(root, 'etc', 'java-21');
    mkdirSync(join(etc, 'security'), { recursive: true });
    for (const file of ['security/java.security', 'net.properties', 'jvm.cfg']) writeFileSync(join(etc, file), '');
    const home = fakeJdk(root, 'jdk');
    mkdirSync(join(home, 'conf', 'security'), { recursive: true });
    mkdirSync(join(home, 'lib'));
    symlinkSync(join(etc, 'security', 'java.security'), join(home, 'conf', 'security', 'java.security'));
    symlinkSync(join(etc, 'net.properties'), join(home, 'conf', 'net.properties'));
    symlinkSync(join(etc, 'jvm.cfg'), join(home, 'lib', 'jvm.cfg'));
    symlinkSync('/usr/share/doc', join(home, 'lib', 'docs'));
    symlinkSync(join(root, 'gone'), join(home, 'lib', 'broken'));
    expect(jdkLinkedFolders(home)).toEqual([etc]);
    expect(withToolchains({ ecosystem: 'gradle', binDirs: [], toolchainPaths: [] } as never, { javaHome: home }).toolchainPaths).toEqual([home, etc]);
  });

  it.skipIf(!existsSync('/usr/lib/jvm/java-17-openjdk-amd64/lib/jvm.cfg'))("Debian's JDK: its configuration in /etc/java-17-openjdk, its CAs in /etc/ssl/certs/java", () => {
    expect(jdkLinkedFolders('/usr/lib/jvm/java-17-openjdk-amd64')).toEqual(['/etc/java-17-openjdk', '/etc/ssl/certs/java']);
    expect(withToolchains({ ecosystem: 'maven', binDirs: [], toolchainPaths: [] } as never, { javaHome: '/usr/lib/jvm/java-17-openjdk-amd64' })).toMatchObject({
      binDirs: ['/usr/lib/jvm/java-17-openjdk-amd64/bin'],
      toolchainPaths: ['/etc/java-17-openjdk', '/etc/ssl/certs/java'],
    });
  });
});

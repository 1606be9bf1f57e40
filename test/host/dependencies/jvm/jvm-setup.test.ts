import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JVM_SETUP_ENV, withJvmSetup } from '../../../../host/dependencies/jvm/jvm-setup';
import { makeCa } from '../../../support/projects/support-private-registry';

/** jvm-setup.sh run on this host with `env`, running the shell line `script` after it: its output. */
const runSetup = (script: string, env: Record<string, string>) =>
  execFileSync('/bin/sh', ['-c', withJvmSetup(`sh -c '${script}'`)], { env: { PATH: process.env.PATH!, ...JVM_SETUP_ENV, ...env }, encoding: 'utf8' });

describe('jvm-setup.sh: what Java is told in the sandbox', () => {
  it('tells Java the proxy (not its credentials) and NO_PROXY, and writes Maven settings of that proxy and the mirrors', () => {
    const settings = join(mkdtempSync(join(tmpdir(), 'dex-jvm-setup-')), '.m2', 'settings.xml');
    const mirrors = '  <mirrors>\n    <mirror><id>m</id><mirrorOf>*</mirrorOf><url>https://m.example/</url></mirror>\n  </mirrors>\n';
    const opts = runSetup('echo "$MAVEN_OPTS|$GRADLE_OPTS|${DEX_MAVEN_MIRRORS:-gone}"', { HTTPS_PROXY: 'http://ana:pw@127.0.0.1:3128/', NO_PROXY: 'localhost, .corp.example', DEX_MAVEN_SETTINGS_FILE: settings, DEX_MAVEN_MIRRORS: mirrors });
    const java = '-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=3128 -Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=3128 -Dhttp.nonProxyHosts=localhost|*.corp.example';
    expect(opts).toBe(` ${java}| ${java}|gone\n`);
    const written = readFileSync(settings, 'utf8');
    expect(written).toContain('<proxy><id>dex-https</id><protocol>https</protocol><host>127.0.0.1</host><port>3128</port><nonProxyHosts>localhost|*.corp.example</nonProxyHosts></proxy>');
    expect(written).toContain(mirrors);
    expect(written).not.toContain('pw');
  });

  it("makes a trust store of SSL_CERT_FILE's bundle, so Java trusts a CA only the bundle holds", () => {
    const ca = makeCa();
    const out = runSetup('store=$(echo "$MAVEN_OPTS" | sed -n "s/.*trustStore=\\([^ ]*\\).*/\\1/p"); keytool -list -v -keystore "$store" -storepass dex-trust | grep -c "dex test private CA"', { SSL_CERT_FILE: ca.bundleWithCa });
    expect(Number(out.trim())).toBeGreaterThan(0);
  });

  it("tells Gradle's build JVM the same in its home's gradle.properties, for the run only", () => {
    const home = mkdtempSync(join(tmpdir(), 'dex-gradle-home-'));
    const seen = runSetup('cat "$GRADLE_USER_HOME/gradle.properties"', { HTTPS_PROXY: 'http://127.0.0.1:3128', GRADLE_USER_HOME: home });
    expect(seen).toBe('systemProp.https.proxyHost=127.0.0.1\nsystemProp.https.proxyPort=3128\nsystemProp.http.proxyHost=127.0.0.1\nsystemProp.http.proxyPort=3128\nsystemProp.http.nonProxyHosts=\n');
    expect(existsSync(join(home, 'gradle.properties'))).toBe(false);
  });

  it('leaves MAVEN_OPTS alone without a proxy or a bundle, and ends as the command ended', () => {
    expect(runSetup('echo "[$MAVEN_OPTS]"', { MAVEN_OPTS: '-Dx=1' }).trim()).toBe('[-Dx=1 ]');
    expect(() => runSetup('exit 3', {})).toThrow(expect.objectContaining({ status: 3 }));
  });
});

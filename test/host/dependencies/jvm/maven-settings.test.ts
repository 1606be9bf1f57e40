import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mirrorsIn, mirrorsXml, ownerMirrors, pomRepositoryHosts } from '../../../../host/dependencies/jvm/maven-settings';

/** An owner's settings.xml as companies write them: a mirror, a server's credentials, a commented-out mirror, a proxy. */
const SETTINGS = `<?xml version="1.0"?>
<settings>
  <servers>
    <server><id>nexus</id><username>ana</username><password>s3cret</password></server>
  </servers>
  <proxies><proxy><id>corp</id><host>proxy.corp</host><port>3128</port></proxy></proxies>
  <mirrors>
    <!-- <mirror><id>old</id><mirrorOf>*</mirrorOf><url>https://old.example/</url></mirror> -->
    <mirror>
      <id>nexus</id>
      <name>Company &amp; friends</name>
      <mirrorOf>*,!snapshots</mirrorOf>
      <url>https://ana:s3cret@\${env.NEXUS_HOST}/repository/maven-public/</url>
    </mirror>
    <mirror><id>unset</id><mirrorOf>central</mirrorOf><url>\${env.NOT_SET}/x</url></mirror>
  </mirrors>
</settings>
`;

describe("the owner's Maven settings, as setup takes them", () => {
  it('takes each mirror (id, mirrorOf, its URL with the environment filled in and no user or password), nothing else', () => {
    expect(mirrorsIn(SETTINGS, { NEXUS_HOST: 'nexus.corp:8443' })).toEqual([{ id: 'nexus', mirrorOf: '*,!snapshots', url: 'https://nexus.corp:8443/repository/maven-public/' }]);
    expect(mirrorsIn('<settings><mirrors><mirror><id>b</id><mirrorOf>external:http:*</mirrorOf><url>http://0.0.0.0/</url><blocked>true</blocked></mirror></mirrors></settings>')).toEqual([
      { id: 'b', mirrorOf: 'external:http:*', url: 'http://0.0.0.0/', blocked: true },
    ]);
  });

  it("reads the user's settings first, then the installation's global ones for the ids the user's lack", () => {
    const home = mkdtempSync(join(tmpdir(), 'dex-m2-home-'));
    mkdirSync(join(home, '.m2'));
    writeFileSync(join(home, '.m2', 'settings.xml'), '<settings><mirrors><mirror><id>a</id><mirrorOf>*</mirrorOf><url>https://user.example/</url></mirror></mirrors></settings>');
    const global = join(home, 'global.xml');
    writeFileSync(global, '<settings><mirrors><mirror><id>a</id><mirrorOf>*</mirrorOf><url>https://global.example/</url></mirror><mirror><id>b</id><mirrorOf>x</mirrorOf><url>https://b.example/</url></mirror></mirrors></settings>');
    expect(ownerMirrors(global, home).map((m) => m.url)).toEqual(['https://user.example/', 'https://b.example/']);
    expect(ownerMirrors(undefined, mkdtempSync(join(tmpdir(), 'dex-m2-none-')))).toEqual([]);
  });

  it('writes the mirrors escaped, and nothing when there are none', () => {
    expect(mirrorsXml([{ id: 'a&b', mirrorOf: '*', url: 'https://x.example/?a=1&b=2' }])).toBe(
      '  <mirrors>\n    <mirror><id>a&amp;b</id><mirrorOf>*</mirrorOf><url>https://x.example/?a=1&amp;b=2</url></mirror>\n  </mirrors>\n',
    );
    expect(mirrorsXml([])).toBe('');
  });

  it("names the hosts of the poms' repositories without their ports, skipping what is commented out or not http", () => {
    const pom = '<project><repositories><repository><url>https://127.0.0.1:8080/r</url></repository></repositories><pluginRepositories><pluginRepository><url>http://plugins.example/</url></pluginRepository></pluginRepositories><!-- <repositories><repository><url>https://old.example/</url></repository></repositories> --><distributionManagement><repository><url>scp://deploy.example/</url></repository></distributionManagement></project>';
    expect(pomRepositoryHosts([pom])).toEqual(['127.0.0.1', 'plugins.example']);
  });
});

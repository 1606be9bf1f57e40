import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { machineMaven } from '../../../../host/dependencies/jvm/machine-maven';

describe("the machine's Maven, as the sandbox runs it", () => {
  it('a Maven outside the system folders: its launcher, jars and logging mounted and its bin on PATH, never its settings.xml', () => {
    const home = join(mkdtempSync(join(tmpdir(), 'dex-maven-home-')), 'apache-maven-3.9.9');
    for (const dir of ['bin', 'boot', 'lib', 'conf/logging']) mkdirSync(join(home, dir), { recursive: true });
    writeFileSync(join(home, 'bin', 'mvn'), '#!/bin/sh\n');
    writeFileSync(join(home, 'bin', 'm2.conf'), '');
    writeFileSync(join(home, 'conf', 'settings.xml'), '<settings><servers/></settings>');
    // The owner's PATH names it through a link, as SDKMAN's `current` does.
    const current = join(home, '..', 'current');
    symlinkSync(home, current);
    expect(machineMaven(join(current, 'bin', 'mvn'))).toEqual({
      binDir: join(home, 'bin'),
      mounts: [join(home, 'bin'), join(home, 'boot'), join(home, 'conf', 'logging'), join(home, 'lib')],
      globalSettings: join(home, 'conf', 'settings.xml'),
    });
  });

  it.skipIf(!existsSync('/usr/share/maven/bin/mvn'))("Debian's Maven: on the sandbox's PATH, only its m2.conf and logging of /etc/maven mounted", () => {
    expect(machineMaven('/usr/bin/mvn')).toEqual({ mounts: ['/etc/maven/logging', '/etc/maven/m2.conf'], globalSettings: '/usr/share/maven/conf/settings.xml' });
  });
});

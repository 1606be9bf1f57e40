#!/usr/bin/env node
// The registry this project is built against serves only the Linux builds of packages
// with per-platform optional dependencies, so `npm install` leaves the other platforms out
// of package-lock.json and `npm ci` then refuses the lock as out of sync. This adds the
// missing entries as optional, platform-restricted stubs that npm skips on Linux.
const fs = require('node:fs');
const path = require('node:path');

const lockPath = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const OSES = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openbsd', 'sunos', 'aix', 'netbsd'];
const CPUS = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el', 'wasm32'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OSES.includes(p));
  const cpu = parts.find((p) => CPUS.includes(p));
  return os || cpu ? { os, cpu } : undefined;
}

let added = 0;
for (const [key, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const target = `node_modules/${dep}`;
    const nested = `${key}/node_modules/${dep}`;
    if (lock.packages[target] || lock.packages[nested]) continue;
    const platform = platformOf(dep);
    if (!platform) continue;
    lock.packages[target] = {
      version: version.replace(/^[\^~]/, ''),
      optional: true,
      ...(platform.os ? { os: [platform.os] } : {}),
      ...(platform.cpu ? { cpu: [platform.cpu] } : {}),
    };
    added++;
  }
}
fs.writeFileSync(lockPath, JSON.stringify(lock, null, 2) + '\n');
console.log(`added ${added} platform entries to package-lock.json`);

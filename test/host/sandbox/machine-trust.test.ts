import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSandbox } from '../../../client/config/sandbox-config';
import { parseSetup } from '../../../client/config/setup-config';
import { DEFAULT_SANDBOX } from '../../../core/safety/sandbox-policy';
import { installFailed } from '../../../host/dependencies/setup-failed';
import { CA_BUNDLE_INSIDE, caBundle, caSources, setupTrust } from '../../../host/sandbox/machine-trust';
import { HostLocalAddress, hostAllowed, startEgressProxy } from '../../../host/sandbox/egress-proxy';
import { startUpstreamProxy } from '../../support/projects/support-private-registry';
import { bypassesProxy, upstreamProxyFrom } from '../../../host/sandbox/upstream-proxy';

const fail = (key: string, problem: string): never => {
  throw new Error(`${key} ${problem}`);
};

/** A CA certificate and its key, in one file, as a careless `cafile=` might name. */
function caWithKey(dir: string): { file: string; cert: string } {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'k.pem', '-out', 'c.pem', '-days', '1', '-subj', '/CN=unit CA'], { cwd: dir, stdio: 'pipe' });
  const cert = readFileSync(join(dir, 'c.pem'), 'utf8').trim();
  writeFileSync(join(dir, 'both.pem'), `${readFileSync(join(dir, 'k.pem'), 'utf8')}\n${cert}\n`);
  return { file: join(dir, 'both.pem'), cert };
}

describe("the machine's CAs", () => {
  it('are found in the environment, pip.conf and .npmrc', () => {
    const home = mkdtempSync(join(tmpdir(), 'dex-home-'));
    const project = mkdtempSync(join(tmpdir(), 'dex-project-'));
    mkdirSync(join(home, '.config', 'pip'), { recursive: true });
    writeFileSync(join(home, '.config', 'pip', 'pip.conf'), '[install]\ncert = /corp/pip.pem\n');
    writeFileSync(join(home, '.npmrc'), 'registry=https://npm.corp/\ncafile="/corp/npm.pem"\n');
    writeFileSync(join(project, '.npmrc'), 'cafile=certs/project.pem\n');
    const sources = caSources({ SSL_CERT_FILE: '/corp/ssl.pem', NODE_EXTRA_CA_CERTS: '/corp/node.pem', NPM_CONFIG_GLOBALCONFIG: '/nowhere' }, home, project);
    const named = Object.fromEntries(sources.map((s) => [s.from.replace(home, '~').replace(project, '<project>'), s.path]));
    expect(named).toMatchObject({
      SSL_CERT_FILE: '/corp/ssl.pem',
      NODE_EXTRA_CA_CERTS: '/corp/node.pem',
      '~/.config/pip/pip.conf cert': '/corp/pip.pem',
      '~/.npmrc cafile': '/corp/npm.pem',
      '<project>/.npmrc cafile': join(project, 'certs/project.pem'),
    });
  });

  it('make one bundle of the system roots and the certificates they name, never anything else of a named file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dex-ca-'));
    const { file, cert } = caWithKey(dir);
    const bundle = caBundle([{ from: 'SSL_CERT_FILE', path: file }, { from: 'PIP_CERT', path: file }]);
    expect(bundle).toContain(cert);
    expect(bundle.split(cert)).toHaveLength(2);
    expect(bundle).not.toContain('PRIVATE KEY');
    // The system's roots come first: tools for which the bundle replaces their own still trust the public registries.
    expect(bundle.indexOf('-----BEGIN CERTIFICATE-----')).toBeLessThan(bundle.indexOf(cert));
    expect(bundle.match(/BEGIN CERTIFICATE/g)!.length).toBeGreaterThan(50);
  });

  it('are told to every package manager, at the bundle mounted in the sandbox', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dex-ca-'));
    const { file, cert } = caWithKey(dir);
    const trust = setupTrust(dir, { NODE_EXTRA_CA_CERTS: file }, mkdtempSync(join(tmpdir(), 'dex-home-')));
    try {
      for (const name of ['SSL_CERT_FILE', 'NODE_EXTRA_CA_CERTS', 'npm_config_cafile', 'PIP_CERT', 'REQUESTS_CA_BUNDLE', 'CARGO_HTTP_CAINFO', 'GIT_SSL_CAINFO', 'CURL_CA_BUNDLE']) {
        expect(trust.env[name]).toBe(CA_BUNDLE_INSIDE);
      }
      expect(trust.env.UV_NATIVE_TLS).toBe('1');
      const [[host, inside]] = trust.files;
      expect(inside).toBe(CA_BUNDLE_INSIDE);
      expect(readFileSync(host, 'utf8')).toContain(cert);
    } finally {
      trust.dispose();
    }
  });
});

describe("the machine's proxy", () => {
  it('is read from HTTPS_PROXY, HTTP_PROXY and NO_PROXY in either case', () => {
    const upstream = upstreamProxyFrom({ https_proxy: 'proxy.corp:3128', HTTP_PROXY: 'http://u:p@proxy.corp:8080', no_proxy: '.corp, 10.0.0.0/8 ,localhost' });
    expect(upstream?.https?.href).toBe('http://proxy.corp:3128/');
    expect(upstream?.http?.port).toBe('8080');
    expect(upstream?.noProxy).toEqual(['.corp', '10.0.0.0/8', 'localhost']);
    expect(upstreamProxyFrom({})).toBeUndefined();
  });

  it('is gone around for NO_PROXY names, domains, ports and ranges, and for loopback', () => {
    const no = ['.corp.example', 'npm.internal:8443', '10.0.0.0/8', 'exact.org'];
    expect(bypassesProxy('registry.corp.example', 443, no)).toBe(true);
    expect(bypassesProxy('corp.example', 443, no)).toBe(true);
    expect(bypassesProxy('npm.internal', 8443, no)).toBe(true);
    expect(bypassesProxy('npm.internal', 443, no)).toBe(false);
    expect(bypassesProxy('10.2.3.4', 443, no)).toBe(true);
    expect(bypassesProxy('11.2.3.4', 443, no)).toBe(false);
    expect(bypassesProxy('exact.org', 443, no)).toBe(true);
    expect(bypassesProxy('notexact.org', 443, no)).toBe(false);
    expect(bypassesProxy('registry.npmjs.org', 443, no)).toBe(false);
    expect(bypassesProxy('127.0.0.1', 4873, [])).toBe(true);
    expect(bypassesProxy('anything', 443, ['*'])).toBe(true);
  });
});

/** The egress proxy's answer to `CONNECT target`, on its Unix socket. */
async function connectVia(socketPath: string, target: string): Promise<string> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const socket = connect(socketPath, () => socket.write(`CONNECT ${target} HTTP/1.1\r\nhost: ${target}\r\n\r\n`));
    socket.once('data', (d) => {
      resolve(String(d).split('\r\n')[0]);
      socket.destroy();
    });
  });
}

describe("the egress proxy through the machine's proxy", () => {
  it('tunnels a name this host cannot resolve through it, and refuses one that resolves to this host', async () => {
    const upstream = await startUpstreamProxy();
    const dir = mkdtempSync(join(tmpdir(), 'dex-proxy-test-'));
    // As DNS would answer: loop.test is this host, far.test is unknown here (the machine's proxy resolves it).
    const resolve = async (host: string, local?: boolean) => {
      if (host === 'far.test') throw new Error('getaddrinfo ENOTFOUND far.test');
      if (!local) throw new HostLocalAddress(`${host} resolves to 127.0.0.1, an address of this host`);
      return '127.0.0.1';
    };
    const proxy = await startEgressProxy(['far.test', 'loop.test'], join(dir, 'p.sock'), { resolve, upstream: { https: new URL(upstream.url), noProxy: [] } });
    try {
      expect(await connectVia(proxy.socketPath, 'loop.test:443')).toBe('HTTP/1.1 403 Forbidden');
      // The machine's proxy cannot reach it either: its refusal is the answer.
      expect(await connectVia(proxy.socketPath, 'far.test:443')).toBe('HTTP/1.1 403 Forbidden');
      expect([...upstream.tunnels.keys()]).toEqual(['far.test:443']);
    } finally {
      await proxy.close();
      await upstream.stop();
    }
  });
});

describe('a private registry on this host', () => {
  it('setup.allowHosts may name host:port (that port only); sandbox.allowHosts may not', () => {
    expect(parseSetup({ allowHosts: ['127.0.0.1:4873', 'npm.corp:8443', '*.corp'] }, fail)).toEqual({ allowHosts: ['127.0.0.1:4873', 'npm.corp:8443', '*.corp'] });
    expect(() => parseSetup({ allowHosts: ['npm.corp:port'] }, fail)).toThrow(/setup\.allowHosts must be a list of host names/);
    expect(() => parseSandbox({ allowHosts: ['127.0.0.1:7233'] }, fail)).toThrow(/sandbox\.allowHosts/);
    expect(hostAllowed('127.0.0.1', ['127.0.0.1:4873'], 4873)).toBe(true);
    expect(hostAllowed('127.0.0.1', ['127.0.0.1:4873'], 7233)).toBe(false);
    expect(hostAllowed('registry.npmjs.org', ['registry.npmjs.org'], 443)).toBe(true);
  });
});

describe("a failed setup's line", () => {
  const plan = { ecosystem: 'python', command: 'uv sync', inputs: [], outputs: [], hosts: ['pypi.org'], toolchain: [], setupEnv: {}, commandEnv: {}, binDirs: [], toolchainPaths: [] };
  const run = (output: string) => ({ exitCode: 1, output, durationMs: 1, timedOut: false }) as Parameters<typeof installFailed>[1];

  it('names the certificate problem found below the error', () => {
    const uv = 'error: Failed to fetch: `https://pypi.corp/simple/attrs/`\n  Caused by: Request failed after 3 retries\n  Caused by: error sending request for url (https://pypi.corp/simple/attrs/)\n  Caused by: client error (Connect)\n  Caused by: invalid peer certificate: UnknownIssuer\n';
    expect(installFailed(plan, run(uv), undefined, DEFAULT_SANDBOX).message).toMatch(/: error: Failed to fetch: `https:\/\/pypi\.corp\/simple\/attrs\/` \(invalid peer certificate: UnknownIssuer\)$/);
    const pip =
      "WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after connection broken by 'SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed certificate in certificate chain (_ssl.c:992)'))': /simple/attrs/\nERROR: Could not find a version that satisfies the requirement attrs (from versions: none)\nERROR: No matching distribution found for attrs\n";
    expect(installFailed(plan, run(pip), undefined, DEFAULT_SANDBOX).message).toMatch(/ERROR: Could not find a version that satisfies the requirement attrs \(from versions: none\) \(certificate verify failed: self-signed certificate in certificate chain\)$/);
    expect(installFailed(plan, run('npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/nope\n'), undefined, DEFAULT_SANDBOX).message).not.toMatch(/certificate/);
  });
});

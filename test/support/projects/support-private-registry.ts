/**
 * A private registry behind a CA of its own, as a company runs one (docs/real-repositories.md#a-registry-behind-a-ca-of-its-own):
 * a CA the test makes (openssl), verdaccio serving npm over HTTPS with that CA's certificate,
 * pypiserver behind a small TLS terminator, a tiny package published into each, and the
 * machine's own upstream proxy (a CONNECT proxy that counts what went through it).
 *
 * verdaccio and pypiserver are installed once into ~/.cache/dex-test (outside the repository,
 * so CI installs them once): `ensureRegistrySoftware()`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../host/local-ports';
import { writeFiles } from './real-projects';

/** Where the registry software is installed, once per machine. */
export const REGISTRY_SOFTWARE = join(homedir(), '.cache', 'dex-test');
const VERDACCIO = join(REGISTRY_SOFTWARE, 'verdaccio');
const PYPISERVER = join(REGISTRY_SOFTWARE, 'pypiserver');
/** uv, beside pypiserver: the test locks its uv project with it, as a developer would. */
export const HOST_UV = join(PYPISERVER, 'bin', 'uv');

/** Installs verdaccio (npm) and pypiserver and uv (a venv) into ~/.cache/dex-test when they are not there. */
export function ensureRegistrySoftware(): void {
  if (!existsSync(join(VERDACCIO, 'node_modules', '.bin', 'verdaccio'))) {
    mkdirSync(VERDACCIO, { recursive: true });
    // node-fetch@2.7.0 for verdaccio-audit's `node-fetch@cjs`: a registry mirror may serve no dist-tag but latest.
    writeFileSync(join(VERDACCIO, 'package.json'), JSON.stringify({ name: 'dex-test-verdaccio', private: true, dependencies: { verdaccio: '6.1.6' }, overrides: { 'node-fetch': '2.7.0' } }));
    execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: VERDACCIO, stdio: 'pipe', timeout: 300_000 });
  }
  if (!existsSync(join(PYPISERVER, 'bin', 'pypi-server')) || !existsSync(HOST_UV)) {
    execFileSync('python3', ['-m', 'venv', PYPISERVER], { stdio: 'pipe' });
    execFileSync(join(PYPISERVER, 'bin', 'pip'), ['install', '-q', 'pypiserver==2.4.2', 'passlib', 'uv'], { stdio: 'pipe', timeout: 300_000 });
  }
}

/** A CA of the test's own, and a server certificate it signed for 127.0.0.1 and localhost. */
export interface TestCa {
  dir: string;
  /** The CA's certificate: what the machine must be told to trust. */
  caFile: string;
  key: string;
  cert: string;
  /** The system's bundle with the CA added: what SSL_CERT_FILE names on a machine that trusts it. */
  bundleWithCa: string;
}

export function makeCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'dex-test-ca-'));
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=dex test private CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n');
  ssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'ext.cnf');
  const bundleWithCa = join(dir, 'bundle-with-ca.pem');
  writeFileSync(bundleWithCa, `${readFileSync('/etc/ssl/certs/ca-certificates.crt', 'utf8')}\n${readFileSync(join(dir, 'ca.pem'), 'utf8')}`);
  return { dir, caFile: join(dir, 'ca.pem'), key: join(dir, 'server.key'), cert: join(dir, 'server.pem'), bundleWithCa };
}

/** Waits until `url` answers (any status), up to `ms`. */
async function answers(url: string, ca: string, ms = 30_000): Promise<void> {
  const { request } = await import('node:https');
  for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
    const ok = await new Promise<boolean>((resolve) => {
      request(url, { ca: readFileSync(ca) }, (res: import('node:http').IncomingMessage) => {
        res.resume();
        resolve(true);
      })
        .on('error', () => resolve(false))
        .end();
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer within ${ms} ms`);
}

/** A running registry: its URL (https://127.0.0.1:PORT/), its `host:port` for setup.allowHosts, and its stop. */
export interface Registry {
  url: string;
  hostPort: string;
  stop(): Promise<void>;
}

const stopProcess = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/** verdaccio on HTTPS with `ca`'s server certificate, no uplinks: a package it serves can come from it only. */
export async function startVerdaccio(ca: TestCa): Promise<Registry> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'dex-verdaccio-'));
  writeFileSync(
    join(dir, 'config.yaml'),
    [
      `storage: ${join(dir, 'storage')}`,
      `auth: { htpasswd: { file: ${join(dir, 'htpasswd')}, max_users: 10 } }`,
      'uplinks: {}',
      "packages: { '**': { access: $all, publish: $authenticated } }",
      `https: { key: ${ca.key}, cert: ${ca.cert} }`,
      `listen: https://127.0.0.1:${port}/`,
      'log: { type: stdout, format: pretty, level: warn }',
      'server: { keepAliveTimeout: 0 }',
    ].join('\n'),
  );
  const child = spawn(process.execPath, [join(VERDACCIO, 'node_modules', 'verdaccio', 'bin', 'verdaccio'), '--config', join(dir, 'config.yaml')], { cwd: dir, stdio: 'ignore' });
  const url = `https://127.0.0.1:${port}/`;
  await answers(`${url}-/ping`, ca.caFile);
  return { url, hostPort: `127.0.0.1:${port}`, stop: () => stopProcess(child) };
}

/** Publishes `name@version` (a one-file CommonJS package exporting `greeting`) into verdaccio with npm, as a new user. */
export async function publishNpm(registry: Registry, ca: TestCa, name: string, greeting: string): Promise<void> {
  const { request } = await import('node:https');
  const token = await new Promise<string>((resolve, reject) => {
    const body = JSON.stringify({ name: 'dex', password: 'dex-test-password', type: 'user' });
    const req = request(`${registry.url}-/user/org.couchdb.user:dex`, { method: 'PUT', ca: readFileSync(ca.caFile), headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d)).on('end', () => ((JSON.parse(text) as { token?: string }).token ? resolve((JSON.parse(text) as { token: string }).token) : reject(new Error(text))));
    });
    req.on('error', reject).end(body);
  });
  const dir = mkdtempSync(join(tmpdir(), 'dex-npm-pkg-'));
  writeFiles(dir, {
    'package.json': JSON.stringify({ name, version: '1.0.0', main: 'index.js' }),
    'index.js': `exports.greeting = ${JSON.stringify(greeting)};\n`,
    '.npmrc': `registry=${registry.url}\n//${registry.hostPort}/:_authToken=${token}\n`,
  });
  execFileSync('npm', ['publish', '--registry', registry.url], { cwd: dir, stdio: 'pipe', env: { ...process.env, npm_config_cafile: ca.bundleWithCa } });
}

/** Terminates TLS with the given key and certificate and forwards to an HTTP port: run as its own process, so the test's synchronous calls never wait on it. */
const TLS_FRONT = `
const { readFileSync } = require('node:fs');
const [key, cert, port, inner] = process.argv.slice(1);
require('node:https').createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
  const upstream = require('node:http').request({ host: '127.0.0.1', port: Number(inner), path: req.url, method: req.method, headers: { ...req.headers, 'x-forwarded-proto': 'https' } }, (reply) => {
    res.writeHead(reply.statusCode || 502, reply.headers);
    reply.pipe(res);
  });
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
}).listen(Number(port), '127.0.0.1');
`;

/** pypiserver on loopback HTTP, behind a Node HTTPS server with `ca`'s certificate: the index is HTTPS only. */
export async function startPypiserver(ca: TestCa): Promise<Registry> {
  const [inner, port] = [await freePort(), await freePort()];
  const packages = mkdtempSync(join(tmpdir(), 'dex-pypi-'));
  const server = spawn(join(PYPISERVER, 'bin', 'pypi-server'), ['run', '-i', '127.0.0.1', '-p', String(inner), '-a', '.', '-P', '.', packages], { stdio: 'ignore' });
  const front = spawn(process.execPath, ['-e', TLS_FRONT, ca.key, ca.cert, String(port), String(inner)], { stdio: 'ignore' });
  const url = `https://127.0.0.1:${port}/`;
  await answers(`${url}simple/`, ca.caFile);
  return { url, hostPort: `127.0.0.1:${port}`, stop: async () => void (await Promise.all([stopProcess(front), stopProcess(server)])) };
}

/** Builds a pure-Python wheel of `module` (its `GREETING`) and uploads it to pypiserver with curl, as `twine upload` would. */
export function publishPython(registry: Registry, ca: TestCa, distribution: string, greeting: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'dex-py-pkg-'));
  const module = distribution.replace(/-/g, '_');
  const wheel = join(dir, `${module}-1.0.0-py3-none-any.whl`);
  const build = `
import base64, hashlib, sys, zipfile
wheel, dist, module, greeting = sys.argv[1:]
info = f"{module}-1.0.0.dist-info"
files = {
  f"{module}/__init__.py": f"GREETING = {greeting!r}\\n",
  f"{info}/METADATA": f"Metadata-Version: 2.1\\nName: {dist}\\nVersion: 1.0.0\\n",
  f"{info}/WHEEL": "Wheel-Version: 1.0\\nGenerator: dex-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
}
def record(data):
  return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data.encode()).digest()).rstrip(b"=").decode() + "," + str(len(data.encode()))
files[f"{info}/RECORD"] = "".join(f"{p},{record(d)}\\n" for p, d in files.items()) + f"{info}/RECORD,,\\n"
with zipfile.ZipFile(wheel, "w") as z:
  for p, d in files.items(): z.writestr(p, d)
`;
  execFileSync('python3', ['-c', build, wheel, distribution, module, greeting], { stdio: 'pipe' });
  execFileSync('curl', ['-sSf', '--cacert', ca.caFile, '-F', ':action=file_upload', '-F', `content=@${wheel}`, registry.url], { stdio: 'pipe' });
}

/** The machine's own proxy: a plain CONNECT proxy that counts each tunnel by its target. */
export interface UpstreamProxyServer {
  url: string;
  /** Tunnels opened, by `host:port`. */
  tunnels: Map<string, number>;
  stop(): Promise<void>;
}

export async function startUpstreamProxy(): Promise<UpstreamProxyServer> {
  const tunnels = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server: Server = createHttpServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    tunnels.set(target, (tunnels.get(target) ?? 0) + 1);
    const [host, port] = target.split(/:(?=\d+$)/);
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    client.on('error', () => upstream.destroy());
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

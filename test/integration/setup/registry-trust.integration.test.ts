/**
 * A registry behind a CA of its own (docs/real-repositories.md#a-registry-behind-a-ca-of-its-own):
 * verdaccio (npm) and pypiserver (PyPI) on HTTPS with a certificate from a CA the test makes,
 * reached only through dex's egress proxy (setup.allowHosts names each by host:port). Told the
 * CA the usual way (SSL_CERT_FILE, NODE_EXTRA_CA_CERTS or a pip.conf's cert), npm, pnpm, pip and
 * uv setups install the package published there; not told, each fails in one line naming the
 * certificate problem. With the machine's own HTTPS_PROXY, setup's connections go through it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SetupConfig } from '../../../core/run/setup-types';
import type { TaskResult } from '../../../core/task/task-types';
import { DependencyCache } from '../../../host/dependencies/dependency-cache';
import { prepareDependencies } from '../../../host/dependencies/prepare-dependencies';
import { SetupFailed } from '../../../host/dependencies/setup-failed';
import { runAgentCommand } from '../../../host/sandbox/run-agent-command';
import { DEFAULT_SANDBOX } from '../../../core/safety/sandbox-policy';
import { completionTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { commitProject } from '../../support/projects/real-projects';
import {
  HOST_UV, ensureRegistrySoftware, makeCa, publishNpm, publishPython, startPypiserver, startUpstreamProxy, startVerdaccio,
  type Registry, type TestCa,
} from '../../support/projects/support-private-registry';

const NPM_PACKAGE = '@dex-private/greeting';
const PY_PACKAGE = 'dex-private-greeting';
const GREETING = 'hello from the private registry';

const dex = useDexEnvironment({ server: 'dev', cassette: [completionTurn('R-npm', { status: 'complete', summary: 'nothing to change' })], queue: 'dex-it-trust' });

let ca: TestCa;
let npmRegistry: Registry;
let pypi: Registry;
/** Setup's download caches, shared by this file's setups (each project's packages are private to it, so no setup finds another's). */
const downloads = join(mkdtempSync(join(tmpdir(), 'dex-trust-downloads-')), '.downloads');
/** The worker's variables as they were: the machine's own CA (its TLS-inspecting proxy's) stays. */
const machineEnv = { ...process.env };

beforeAll(async () => {
  ensureRegistrySoftware();
  ca = makeCa();
  [npmRegistry, pypi] = await Promise.all([startVerdaccio(ca), startPypiserver(ca)]);
  await publishNpm(npmRegistry, ca, NPM_PACKAGE, GREETING);
  publishPython(pypi, ca, PY_PACKAGE, GREETING);
}, 240_000);

afterAll(async () => {
  await Promise.all([npmRegistry?.stop(), pypi?.stop()]);
});

/** Runs `fn` with the worker's environment changed by `vars` (undefined removes one), then puts it back. */
async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  for (const [name, value] of Object.entries(vars)) if (value === undefined) delete process.env[name];
  else process.env[name] = value;
  try {
    return await fn();
  } finally {
    for (const name of Object.keys(vars)) if (machineEnv[name] === undefined) delete process.env[name];
    else process.env[name] = machineEnv[name];
  }
}

/** `.npmrc` sending the private scope to verdaccio; everything else to the public registry. */
const scopedNpmrc = () => `@dex-private:registry=${npmRegistry.url}\n`;

/** A Node project depending on the private package (and `ms` from the public registry), locked by the host's npm. */
function npmProject(): string {
  const files = {
    'package.json': JSON.stringify({ name: 'app', version: '1.0.0', private: true, dependencies: { [NPM_PACKAGE]: '1.0.0', ms: '2.1.3' } }, null, 2),
    '.npmrc': scopedNpmrc(),
    '.gitignore': 'node_modules\n',
  };
  return commitProject('trust-npm', files, (dir) =>
    execFileSync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'pipe', env: { ...process.env, npm_config_cafile: ca.bundleWithCa } }),
  );
}

/**
 * pnpm 9.15.9 by `npx`, as setup.commands: corepack's own fetch (undici's WebAssembly) cannot start
 * under the sandbox's address-space limit, and this machine's npm mirror serves no signatures for it.
 */
const PNPM = 'npx --yes pnpm@9.15.9';

/** A pnpm project depending on the private package, locked by that pnpm on the host. */
function pnpmProject(): string {
  const files = {
    'package.json': JSON.stringify({ name: 'app', version: '1.0.0', private: true, dependencies: { [NPM_PACKAGE]: '1.0.0' } }, null, 2),
    '.npmrc': scopedNpmrc(),
    '.gitignore': 'node_modules\n',
  };
  return commitProject('trust-pnpm', files, (dir) =>
    execFileSync('/bin/sh', ['-c', `${PNPM} install --lockfile-only`], { cwd: dir, stdio: 'pipe', env: { ...process.env, npm_config_cafile: ca.bundleWithCa } }),
  );
}

/** setup.commands for the pnpm project: pnpm itself comes from the public registry. */
const PNPM_SETUP: SetupConfig = { commands: [`${PNPM} install --frozen-lockfile`], cache: ['node_modules'], inputs: ['package.json', 'pnpm-lock.yaml', '.npmrc'] };

/** A requirements file whose index is the private one. */
function pipProject(): string {
  return commitProject('trust-pip', { 'requirements.txt': `--index-url ${pypi.url}simple/\n${PY_PACKAGE}==1.0.0\n`, '.gitignore': '.venv\n' });
}

/** A uv project whose default index is the private one, locked by uv on the host. */
function uvProject(): string {
  const pyproject = [
    '[project]', 'name = "app"', 'version = "0.1.0"', 'requires-python = ">=3.9"', `dependencies = ["${PY_PACKAGE}==1.0.0"]`, '',
    '[[tool.uv.index]]', 'name = "private"', `url = "${pypi.url}simple/"`, 'default = true', '',
  ].join('\n');
  return commitProject('trust-uv', { 'pyproject.toml': pyproject, '.gitignore': '.venv\n' }, (dir) =>
    execFileSync(HOST_UV, ['lock', '-q'], { cwd: dir, stdio: 'pipe', env: { ...process.env, SSL_CERT_FILE: ca.bundleWithCa, UV_NATIVE_TLS: '1', UV_CACHE_DIR: join(ca.dir, 'uv-cache') } }),
  );
}

/**
 * npm and uv do not retry in the failing setups (a machine that set them so): each retry of a
 * certificate problem meets it again, after seconds of back-off. pip does, as by default: with
 * `-q` only its warning about a retry names the certificate problem.
 */
const NO_RETRIES = { npm_config_fetch_retries: '0', UV_HTTP_RETRIES: '0' };

/** Sets `worktree` up as a task would (a fresh dependency cache), allowing `registry` by host:port. */
function setUp(worktree: string, registry: Registry, extra: SetupConfig = {}) {
  const root = mkdtempSync(join(tmpdir(), 'dex-trust-cache-'));
  const config: SetupConfig = { ...extra, allowHosts: [registry.hostPort, ...(extra.commands ? ['registry.npmjs.org'] : [])], env: Object.keys(NO_RETRIES) };
  return prepareDependencies({ worktree, config, cache: new DependencyCache(root), downloads, command: { timeoutMs: 180_000 } });
}

/** The one line a failed setup says. */
async function failureLine(worktree: string, registry: Registry, extra: SetupConfig = {}): Promise<string> {
  const failure = await setUp(worktree, registry, extra).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(failure).toBeInstanceOf(SetupFailed);
  const line = (failure as SetupFailed).message;
  expect(line.split('\n')).toHaveLength(1);
  return line;
}

describe('a registry behind a CA of its own', () => {
  let projects: { npm: string; pnpm: string; pip: string; uv: string };
  beforeAll(() => {
    projects = { npm: npmProject(), pnpm: pnpmProject(), pip: pipProject(), uv: uvProject() };
  }, 120_000);

  it('not told the CA, each setup fails in one line naming the certificate problem', async () => {
    await withEnv(NO_RETRIES, async () => {
      const [npm, pnpm, pip, uv] = await Promise.all([
        failureLine(projects.npm, npmRegistry),
        failureLine(projects.pnpm, npmRegistry, PNPM_SETUP),
        failureLine(projects.pip, pypi),
        failureLine(projects.uv, pypi),
      ]);
      console.log([npm, pnpm, pip, uv].join('\n'));
      // The server sends its own certificate only, as most do: Node says it cannot verify it.
      expect(npm).toMatch(/^setup failed: npm `npm ci --no-audit --no-fund` exited 1 \(network only to registry\.npmjs\.org, 127\.0\.0\.1:\d+\): npm error request to https:\/\/127\.0\.0\.1:\d+\/@dex-private%2fgreeting failed, reason: unable to verify the first certificate$/);
      expect(pnpm).toMatch(/: FetchError: request to https:\/\/127\.0\.0\.1:\d+\/@dex-private\/greeting\/-\/greeting-1\.0\.0\.tgz failed, reason: unable to verify the first certificate$/);
      expect(pip).toMatch(/certificate verify failed: unable to get local issuer certificate/);
      expect(uv).toMatch(/invalid peer certificate: UnknownIssuer/);
    });
  }, 240_000);

  it('told it by SSL_CERT_FILE alone, npm, pnpm, pip and uv install the private package', async () => {
    const outcomes = await withEnv({ SSL_CERT_FILE: ca.bundleWithCa }, () =>
      Promise.all([setUp(projects.npm, npmRegistry), setUp(projects.pnpm, npmRegistry, PNPM_SETUP), setUp(projects.pip, pypi), setUp(projects.uv, pypi)]),
    );
    expect(outcomes.map((o) => o.steps.map((s) => s.source))).toEqual([['installed'], ['installed'], ['installed'], ['installed']]);
    for (const name of ['npm', 'pnpm'] as const) {
      expect(readFileSync(join(projects[name], 'node_modules', '@dex-private', 'greeting', 'index.js'), 'utf8')).toContain(GREETING);
    }
    for (const name of ['pip', 'uv'] as const) {
      const said = execFileSync(join(projects[name], '.venv', 'bin', 'python'), ['-c', 'import dex_private_greeting as g; print(g.GREETING)'], { encoding: 'utf8' });
      expect(said.trim()).toBe(GREETING);
    }
  }, 300_000);

  it('told it by NODE_EXTRA_CA_CERTS or a pip.conf cert, the other ecosystems are told too', async () => {
    const [pipAgain, npmAgain] = [pipProject(), npmProject()];
    const pipConf = join(ca.dir, 'pip.conf');
    writeFileSync(pipConf, `[global]\ncert = ${ca.bundleWithCa}\n`);
    // Node's variable reaches pip; pip's config file reaches npm (whose own cafile, this machine's global npmrc, is overridden).
    // One after the other: each reads the worker's environment as its own variable alone changed it.
    await withEnv({ NODE_EXTRA_CA_CERTS: ca.caFile }, () => setUp(pipAgain, pypi));
    await withEnv({ PIP_CONFIG_FILE: pipConf }, () => setUp(npmAgain, npmRegistry));
    const said = execFileSync(join(pipAgain, '.venv', 'bin', 'python'), ['-c', 'import dex_private_greeting as g; print(g.GREETING)'], { encoding: 'utf8' });
    expect(said.trim()).toBe(GREETING);
    expect(readFileSync(join(npmAgain, 'node_modules', '@dex-private', 'greeting', 'index.js'), 'utf8')).toContain(GREETING);
  }, 240_000);

  it('the agent\'s commands get neither the CA settings nor a way to this host\'s registry', async () => {
    const worktree = projects.npm;
    // The same host:port the setup reached, asked for by a command that is not setup.
    const policy = { ...DEFAULT_SANDBOX, allowHosts: [npmRegistry.hostPort] };
    const connectThroughProxy = `const s=require('net').connect(3128,'127.0.0.1',()=>s.write('CONNECT ${npmRegistry.hostPort} HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'));s.on('data',d=>{console.log(String(d).replace(/\\s+/g,' '));s.destroy()})`;
    const result = await runAgentCommand(
      `env | grep -c -E 'SSL_CERT_FILE|NODE_EXTRA_CA_CERTS|PIP_CERT|npm_config_cafile'; test -e /run/dex/ca-certificates.crt && echo BUNDLE; node -e "${connectThroughProxy}"`,
      worktree,
      policy,
      { timeoutMs: 30_000, outputLimitBytes: 65_536 },
      { pathDirs: [] },
    );
    expect(result.output.split('\n')[0]).toBe('0');
    expect(result.output).not.toContain('BUNDLE');
    expect(result.output).toMatch(/403 Forbidden .*resolves to 127\.0\.0\.1, an address of this host/);
  }, 60_000);
});

describe("the machine's proxy", () => {
  it('setup reaches the public registry through HTTPS_PROXY, the private one on loopback directly, and NO_PROXY goes around it', async () => {
    const upstream = await startUpstreamProxy();
    try {
      const worktree = npmProject();
      await withEnv({ NODE_EXTRA_CA_CERTS: ca.caFile, HTTPS_PROXY: upstream.url, NO_PROXY: undefined, no_proxy: undefined }, () => setUp(worktree, npmRegistry));
      expect(upstream.tunnels.get('registry.npmjs.org:443')).toBeGreaterThan(0);
      expect(upstream.tunnels.has(npmRegistry.hostPort)).toBe(false);
      expect(readFileSync(join(worktree, 'node_modules', 'ms', 'package.json'), 'utf8')).toContain('"version": "2.1.3"');

      const before = new Map(upstream.tunnels);
      const again = npmProject();
      await withEnv({ NODE_EXTRA_CA_CERTS: ca.caFile, HTTPS_PROXY: upstream.url, NO_PROXY: '.npmjs.org' }, () => setUp(again, npmRegistry));
      expect(upstream.tunnels).toEqual(before);
      expect(existsSync(join(again, 'node_modules', 'ms'))).toBe(true);
    } finally {
      await upstream.stop();
    }
  }, 120_000);
});

describe('a real task', () => {
  it('sets up a project from the private registry, told the CA by NODE_EXTRA_CA_CERTS', async () => {
    const repo = npmProject();
    const result = await withEnv({ NODE_EXTRA_CA_CERTS: ca.caFile }, async () => {
      const { handle } = await dex.startTask('R-npm', { repoPath: repo, verify: [`node -e "process.exit(require('${NPM_PACKAGE}').greeting === '${GREETING}' ? 0 : 1)"`], setup: { allowHosts: [npmRegistry.hostPort] } });
      return (await handle.result()) as TaskResult;
    });
    expect(result.state).toBe('completed');
    expect(result.setup).toMatch(/^npm installed/);
    expect(result.verifyPassed).toBe(true);
  }, 120_000);
});

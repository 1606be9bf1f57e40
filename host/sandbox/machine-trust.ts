import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { rootCertificates } from 'node:tls';

/**
 * The certificate authorities the machine's tools trust, handed to setup's package managers
 * (docs/real-repositories.md#a-registry-behind-a-ca-of-its-own). A machine behind a
 * TLS-inspecting proxy, or with a private registry signed by a CA of its own, names that CA in
 * one of many places; each package manager reads a different one. dex gathers every certificate
 * they name into one bundle, mounts it read-only in the sandbox, and tells every package manager
 * of it in its own way. Only certificates are copied, never a named file itself: a project's
 * `.npmrc` (which a task can change) could name any file of the host.
 */

/** Where setup's commands find the bundle. */
export const CA_BUNDLE_INSIDE = '/run/dex/ca-certificates.crt';

/** Variables naming a CA file, as the machine's tools read them. */
const CA_FILE_VARIABLES = [
  'SSL_CERT_FILE', 'NODE_EXTRA_CA_CERTS', 'REQUESTS_CA_BUNDLE', 'PIP_CERT', 'CURL_CA_BUNDLE', 'GIT_SSL_CAINFO',
  'CARGO_HTTP_CAINFO', 'npm_config_cafile', 'NPM_CONFIG_CAFILE',
];
/** Variables naming a folder of CA files (OpenSSL's hashed folder). */
const CA_DIR_VARIABLES = ['SSL_CERT_DIR'];
/** The system's bundle, where Debian, Alpine, Fedora and macOS keep it: the bundle starts from it. */
const SYSTEM_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/cert.pem'];

/**
 * How each package manager is told (each reads its own variable; those that replace their own
 * roots get the whole bundle, which starts from the system's): Node and so npm, pnpm, yarn,
 * corepack (NODE_EXTRA_CA_CERTS; npm_config_cafile also overrides a `cafile=` the sandbox has not),
 * yarn berry, pip, requests (poetry), OpenSSL (Python's ssl, curl), Go and uv (SSL_CERT_FILE),
 * uv's system-store mode, cargo, git.
 */
const TOLD = [
  'NODE_EXTRA_CA_CERTS', 'npm_config_cafile', 'YARN_HTTPS_CA_FILE_PATH', 'PIP_CERT', 'REQUESTS_CA_BUNDLE', 'SSL_CERT_FILE',
  'CURL_CA_BUNDLE', 'CARGO_HTTP_CAINFO', 'GIT_SSL_CAINFO',
];

/** Where the machine names a CA: `from` says which setting (`SSL_CERT_FILE`, `/etc/pip.conf cert`). */
interface CaSource {
  from: string;
  path: string;
}

/** A `key = value` of an ini-like file (pip.conf, .npmrc), in any section. */
function iniValue(file: string, key: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const line = text.split('\n').find((l) => new RegExp(`^\\s*${key}\\s*=`).test(l));
  return line?.slice(line.indexOf('=') + 1).trim().replace(/^["']|["']$/g, '') || undefined;
}

/**
 * Every place the machine names a CA, in `env` (the worker's environment), pip's config files
 * (PIP_CONFIG_FILE, /etc/pip.conf, ~/.config/pip/pip.conf, ~/.pip/pip.conf: `cert =`) and npm's
 * (its global npmrc, ~/.npmrc and the project's `.npmrc`: `cafile =`).
 */
export function caSources(env: NodeJS.ProcessEnv, home: string, project?: string): CaSource[] {
  const sources: CaSource[] = [];
  for (const name of [...CA_FILE_VARIABLES, ...CA_DIR_VARIABLES]) if (env[name]) sources.push({ from: name, path: env[name]! });
  const pipConfigs = [env.PIP_CONFIG_FILE, '/etc/pip.conf', '/etc/xdg/pip/pip.conf', join(home, '.config/pip/pip.conf'), join(home, '.pip/pip.conf')];
  for (const file of pipConfigs) {
    const cert = file && iniValue(file, 'cert');
    if (cert) sources.push({ from: `${file} cert`, path: cert });
  }
  const npmrcs = [
    env.NPM_CONFIG_GLOBALCONFIG ?? env.npm_config_globalconfig ?? join(dirname(dirname(process.execPath)), 'etc', 'npmrc'),
    env.NPM_CONFIG_USERCONFIG ?? env.npm_config_userconfig ?? join(home, '.npmrc'),
    ...(project ? [join(project, '.npmrc')] : []),
  ];
  for (const file of npmrcs) {
    const cafile = iniValue(file, 'cafile');
    if (cafile) sources.push({ from: `${file} cafile`, path: isAbsolute(cafile) ? cafile : resolve(join(file, '..'), cafile.replace(/^~(?=\/)/, home)) });
  }
  return sources.filter((source) => isAbsolute(source.path));
}

/** The certificates (PEM blocks, nothing else) of a file, or of every file of a folder; none when it cannot be read. */
export function certificatesIn(path: string): string[] {
  const CERTIFICATE = /-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+?-----END CERTIFICATE-----/g;
  const read = (file: string): string[] => {
    try {
      const info = statSync(file);
      return info.isFile() && info.size < 16 * 1024 * 1024 ? (readFileSync(file, 'utf8').match(CERTIFICATE) ?? []) : [];
    } catch {
      return [];
    }
  };
  try {
    if (statSync(path).isDirectory()) return readdirSync(path).flatMap((name) => read(join(path, name)));
  } catch {
    return [];
  }
  return read(path);
}

/** The bundle's text: the system's roots (Node's own where the system has none), then every certificate `sources` name, each once. */
export function caBundle(sources: readonly CaSource[]): string {
  const system = SYSTEM_BUNDLES.find((file) => existsSync(file));
  const roots = system ? certificatesIn(system) : [...rootCertificates];
  const seen = new Set<string>();
  const certificates = [...roots, ...sources.flatMap((source) => certificatesIn(source.path))].filter((pem) => {
    const key = pem.replace(/\s/g, '');
    return !seen.has(key) && Boolean(seen.add(key));
  });
  return `${certificates.join('\n')}\n`;
}

/** What a confined setup gets of the machine's trust: its environment, the bundle's mount, and the clean-up. */
interface SetupTrust {
  env: Record<string, string>;
  /** `[hostPath, sandboxPath]` mounted read-only. */
  files: [string, string][];
  dispose(): void;
}

/**
 * The machine's trust for a setup in `worktree` (the sandbox's own environment has none of the
 * worker's variables): nothing when the machine names no CA, since the system's folders are mounted.
 */
export function setupTrust(worktree: string, env: NodeJS.ProcessEnv = process.env, home: string = homedir()): SetupTrust {
  const sources = caSources(env, home, worktree);
  if (!sources.length) return { env: {}, files: [], dispose: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'dex-trust-'));
  const bundle = join(dir, 'ca-certificates.crt');
  writeFileSync(bundle, caBundle(sources), { mode: 0o644 });
  // uv's own roots are webpki's: with this it reads SSL_CERT_FILE's bundle as the platform's store.
  const told: Record<string, string> = { ...Object.fromEntries(TOLD.map((name) => [name, CA_BUNDLE_INSIDE])), UV_NATIVE_TLS: '1' };
  return { env: told, files: [[bundle, CA_BUNDLE_INSIDE]], dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

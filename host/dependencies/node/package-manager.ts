import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DOWNLOADS_INSIDE, readText } from '../ecosystem-plan';

/**
 * The pnpm or yarn a project is installed with (docs/real-repositories.md#package-managers): the
 * version `packageManager` in package.json pins, else the one its lockfile's format says.
 */
export interface PackageManager {
  name: 'pnpm' | 'yarn';
  version: string;
  /** Where the version came from. */
  from: 'packageManager' | 'lockfile' | 'yarnPath';
  /** The hash `packageManager` pins after `+` (corepack's form: `sha512.<hex>`), checked against what the registry gives. */
  hash?: { algorithm: string; hex: string };
  /** Yarn 2 and later (a lockfile with `__metadata`). */
  berry: boolean;
  /** The yarn release the project ships (`.yarnrc.yml`'s `yarnPath`), relative to the worktree: used as it is, nothing fetched. */
  yarnPath?: string;
}

/**
 * Where the package manager is placed in the worktree: cached with the dependencies, on PATH for
 * setup, verify and the agent. Inside node_modules, which every tool leaves alone (in a folder of
 * its own, `.dex/`, a project's `eslint .` linted pnpm's 23 MB bundle: destr's suite failed with
 * 11,264 errors); for yarn 2+, which removes node_modules under Plug'n'Play, inside `.yarn/`, where
 * such projects keep their own yarn release already.
 */
export const pmDir = (pm: PackageManager): string => (pm.berry ? '.yarn/.dex-package-manager' : 'node_modules/.dex-package-manager');
/**
 * The variable naming setup's download cache in the prepare line: the sandbox's path, or the
 * host's when the sandbox is off (setupEnv's values are mapped, a command's text is not).
 */
export const DOWNLOADS_ENV = { DEX_DOWNLOADS: DOWNLOADS_INSIDE };
/** Where fetched package managers are kept between installs, one folder per version. */
const PM_DOWNLOADS = '$DEX_DOWNLOADS/package-managers';

/** The version dex installs for a lockfile format when nothing pins one: the last release of the major that writes it. */
const PNPM_FOR_LOCKFILE: [RegExp, string][] = [
  [/^9\./, '10.34.9'],
  [/^6\./, '8.15.9'],
  [/^5\.4/, '7.33.7'],
  [/^5\./, '6.35.1'],
];
const PNPM_LATEST_KNOWN = '10.34.9';
const YARN_CLASSIC = '1.22.22';
/** `__metadata.version` of a berry lockfile: 8 and up yarn 4, 6–7 yarn 3, below yarn 2. */
const yarnBerryFor = (metadataVersion: number): string => (metadataVersion >= 8 ? '4.18.1' : metadataVersion >= 6 ? '3.8.7' : '2.4.2');

/** A version and hash safe to put in a shell line: corepack's `name@x.y.z[+algo.hex]`, nothing else. */
const PACKAGE_MANAGER_FIELD = /^(pnpm|yarn)@(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)(?:\+(sha1|sha224|sha256|sha384|sha512)\.([0-9a-f]+))?$/;

/** A relative path of plain names, safe in a shell line unquoted. */
const SAFE_PATH = /^[\w@.+-]+(\/[\w@.+-]+)*$/;

/** package.json's `packageManager` for `name`; undefined when it names another manager or a form dex does not fetch (a URL). */
function pinned(dir: string, name: PackageManager['name']): Pick<PackageManager, 'version' | 'hash'> | undefined {
  let field: unknown;
  try {
    field = (JSON.parse(readText(join(dir, 'package.json')) ?? '{}') as { packageManager?: unknown }).packageManager;
  } catch {
    return undefined;
  }
  const match = typeof field === 'string' ? PACKAGE_MANAGER_FIELD.exec(field.trim()) : null;
  if (!match || match[1] !== name) return undefined;
  return { version: match[2], hash: match[3] ? { algorithm: match[3], hex: match[4] } : undefined };
}

/** `.yarnrc.yml`'s `yarnPath` when the file it names is in the worktree. */
function shippedYarn(dir: string): string | undefined {
  const path = /^yarnPath:\s*["']?([^"'\s#]+)/m.exec(readText(join(dir, '.yarnrc.yml')) ?? '')?.[1];
  // The path goes into shell lines: plain relative names only.
  return path && SAFE_PATH.test(path) && !path.split('/').includes('..') && existsSync(join(dir, path)) ? path : undefined;
}

/** The pnpm `dir` is installed with: packageManager's, else the one for pnpm-lock.yaml's `lockfileVersion`. */
export function pnpmOf(dir: string): PackageManager {
  const pin = pinned(dir, 'pnpm');
  if (pin) return { name: 'pnpm', ...pin, from: 'packageManager', berry: false };
  const lockfileVersion = /^lockfileVersion:\s*['"]?([\d.]+)/m.exec(readText(join(dir, 'pnpm-lock.yaml')) ?? '')?.[1] ?? '';
  const version = PNPM_FOR_LOCKFILE.find(([format]) => format.test(lockfileVersion))?.[1] ?? PNPM_LATEST_KNOWN;
  return { name: 'pnpm', version, from: 'lockfile', berry: false };
}

/** The yarn `dir` is installed with: the release it ships (yarnPath), else packageManager's, else the one for yarn.lock's format. */
export function yarnOf(dir: string): PackageManager {
  const metadata = /^__metadata:\s*\n\s+version:\s*(\d+)/m.exec(readText(join(dir, 'yarn.lock')) ?? '');
  const pin = pinned(dir, 'yarn');
  const yarnPath = shippedYarn(dir);
  if (yarnPath) {
    const version = /(\d+\.\d+\.\d+(?:-[\w.]+)?)\.c?js$/.exec(yarnPath)?.[1] ?? pin?.version ?? 'shipped';
    return { name: 'yarn', version, from: 'yarnPath', berry: true, yarnPath };
  }
  if (pin) return { name: 'yarn', ...pin, from: 'packageManager', berry: !pin.version.startsWith('1.') };
  // A lockfile with `__metadata`, or yarn 2+'s own config file, is berry's.
  if (metadata || existsSync(join(dir, '.yarnrc.yml'))) return { name: 'yarn', version: yarnBerryFor(Number(metadata?.[1] ?? 8)), from: 'lockfile', berry: true };
  return { name: 'yarn', version: YARN_CLASSIC, from: 'lockfile', berry: false };
}

/** The npm package a package manager is published as, and its program inside the package. */
function npmPackage(pm: PackageManager): { spec: string; bin: string } {
  if (pm.name === 'pnpm') return { spec: `pnpm@${pm.version}`, bin: 'bin/pnpm.cjs' };
  return pm.berry ? { spec: `@yarnpkg/cli-dist@${pm.version}`, bin: 'bin/yarn.js' } : { spec: `yarn@${pm.version}`, bin: 'bin/yarn.js' };
}

/** What names the package manager in the cache key: a different version or pinned hash installs differently. */
export const packageManagerId = (pm: PackageManager): string =>
  `${pm.name}@${pm.version}${pm.hash ? `+${pm.hash.algorithm}.${pm.hash.hex}` : ''}${pm.yarnPath ? ` (${pm.yarnPath})` : ''}`;

/**
 * Yarn 2+ reaches the registry through a proxy only when told in its own settings, never from
 * HTTPS_PROXY: setup's sandbox has no other way out (docs/security.md).
 */
const BERRY_PROXY = ['[ -z "$HTTPS_PROXY" ] || export YARN_HTTPS_PROXY="${YARN_HTTPS_PROXY:-$HTTPS_PROXY}"', '[ -z "$HTTP_PROXY" ] || export YARN_HTTP_PROXY="${YARN_HTTP_PROXY:-$HTTP_PROXY}"'];

/**
 * A `#!/bin/sh` program in pmDir/bin running `target` (relative to the worktree) with node: a
 * worktree can move, so the path is found from the program's own. Node runs without WebAssembly's
 * trap handler where it has the flag (20.15 and later): the handler reserves more address space
 * per Wasm memory than the sandbox's limit (sandbox.limits.memoryMb), and yarn 2+ unzips its
 * cache with Wasm (docs/real-repositories.md#package-managers).
 */
const shim = (pm: PackageManager, target: string) => {
  const dir = pmDir(pm);
  const file = `${dir}/bin/${pm.name}`;
  const lines = (shellLines: string[]) => `printf '%s\\n' ${shellLines.map((line) => `'${line}'`).join(' ')} >> ${file}`;
  return [
    `f=$(node --disable-wasm-trap-handler -e 0 2>/dev/null && echo yes || true)`,
    lines(['#!/bin/sh', ...(pm.berry ? BERRY_PROXY : [])]),
    // In NODE_OPTIONS, not node's arguments: yarn's worker threads refuse it there.
    `{ [ -z "$f" ] || ${lines(['export NODE_OPTIONS="--disable-wasm-trap-handler${NODE_OPTIONS:+ $NODE_OPTIONS}"'])}; }`,
    lines([`exec node "$(dirname "$0")/${'../'.repeat(dir.split('/').length + 1)}${target}" "$@"`]),
    `chmod +x ${file}`,
  ].join(' && ');
};

/**
 * The shell line setup runs before the install, in the sandbox, that puts `pm` in the worktree's
 * pmDir with a `pnpm`/`yarn` program in its bin/. A yarn the project ships is used as it is.
 * Otherwise the package manager's own npm package is fetched with `npm pack` (npm checks the
 * registry's integrity hash) into the download cache once per version, its tarball checked
 * against packageManager's hash when it pins one, every time, then copied into the worktree.
 * Nothing here uses corepack: see docs/real-repositories.md#package-managers for why.
 */
export function placePackageManager(pm: PackageManager): string {
  const dir = pmDir(pm);
  const reset = `rm -rf ${dir} && mkdir -p ${dir}/bin`;
  if (pm.yarnPath) return `${reset} && ${shim(pm, pm.yarnPath)}`;
  const { spec, bin } = npmPackage(pm);
  const folder = `${PM_DOWNLOADS}/${spec.replace('/', '+')}`;
  const fetch = [
    `mkdir -p "${PM_DOWNLOADS}"`,
    `t=$(mktemp -d "${folder}.XXXXXX")`,
    `(cd "$t" && npm pack ${spec} --ignore-scripts --loglevel=error --cache "$DEX_DOWNLOADS/npm" >/dev/null)`,
    `tar -xzf "$t"/*.tgz -C "$t"`,
    // Two setups fetching at once: the first rename wins, the other's copy is dropped.
    `{ mv -T "$t" "${folder}" 2>/dev/null || rm -rf "$t"; }`,
  ].join(' && ');
  const failed = (what: string) => `{ echo "error: ${what}" >&2; exit 1; }`;
  const lines = [
    `{ [ -e "${folder}/package/${bin}" ] || { ${fetch}; } || { rm -rf "$t"; ${failed(`could not fetch ${spec} from the npm registry (npm says why above)`)}; }; }`,
  ];
  if (pm.hash) {
    const { algorithm, hex } = pm.hash;
    const sum = (file: string) => `[ "$(${algorithm}sum "${file}" | cut -d' ' -f1)" = ${hex} ]`;
    // corepack hashes the npm tarball; for yarn 2+ it may have hashed the yarn.js it fetched from repo.yarnpkg.com, which is the package's bin/yarn.js.
    const check = pm.berry ? `{ ${sum(`$(ls "${folder}"/*.tgz)`)} || ${sum(`${folder}/package/${bin}`)}; }` : sum(`$(ls "${folder}"/*.tgz)`);
    lines.push(`${check} || ${failed(`${spec} from the npm registry does not match the ${algorithm} hash package.json's packageManager pins`)}`);
  }
  lines.push(reset, `cp -a "${folder}/package" ${dir}/${pm.name}`, shim(pm, `${dir}/${pm.name}/${bin}`));
  return `(${lines.join(' && ')})`;
}

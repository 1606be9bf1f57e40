// The CLI as one file (docs/performance.md#the-cli-from-one-file): esbuild bundles dex's own
// TypeScript once per code version into dex's cache, and every command after loads that file
// instead of compiling module by module with tsx: `dex status` 1.06 → 0.58 s of CPU, a refused
// input 0.31 → 0.13 s. Plain JavaScript, since it runs before any TypeScript can load.
'use strict';
const { createHash } = require('node:crypto');
const { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } = require('node:fs');
const { builtinModules } = require('node:module');
const { homedir } = require('node:os');
const { basename, dirname, join } = require('node:path');

const ROOT = join(__dirname, '..');
/** The folders the CLI's code comes from: what the bundle holds, so what its key hashes. */
const SOURCES = ['client', 'core', 'activities', 'host', 'store', 'worker', 'tracing', 'workflows'];
/** Bundles kept in the cache: a developer's recent versions; older ones are removed. */
const KEEP = 8;

/** The same folder as host/cache-dir.ts's dexCacheDir. */
const cacheDir = () => process.env.DEX_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'dex');

/**
 * The packages installed: the bundle names each by the path of the file Node resolved, which a
 * package's new version may move. npm's record of the installed tree changes at every install.
 */
function installedTree() {
  for (const file of [join(ROOT, 'node_modules', '.package-lock.json'), join(ROOT, 'package-lock.json'), join(ROOT, 'package.json')]) {
    try {
      return readFileSync(file);
    } catch {
      // not this layout: the next
    }
  }
  return '';
}

/** Hash of every source file's path and bytes, the installed packages, this file and esbuild's version: ~10 ms for ~400 files. */
function codeVersion() {
  const hash = createHash('sha256').update(readFileSync(__filename)).update(require('esbuild/package.json').version).update(installedTree());
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else hash.update(path).update(readFileSync(path));
    }
  };
  for (const dir of SOURCES) walk(join(ROOT, dir));
  return hash.digest('hex').slice(0, 16);
}

/**
 * Packages stay outside the bundle, named by the absolute path Node would load (so the bundle
 * runs from the cache, far from node_modules); each source file keeps its own __dirname and
 * __filename (files it reads or starts by path: schemas, the spawner's child, the shared host).
 */
const dexPlugin = {
  name: 'dex',
  setup(build) {
    const builtins = new Set(builtinModules);
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || builtins.has(args.path)) return { path: args.path, external: true };
      try {
        return { path: require.resolve(args.path, { paths: [args.resolveDir] }), external: true };
      } catch {
        return { path: args.path, external: true }; // an optional package not installed: required (and missed) as written
      }
    });
    build.onLoad({ filter: /\.(ts|js|cjs)$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const own = /__dirname|__filename/.test(source) ? `const __dirname = ${JSON.stringify(dirname(args.path))}; const __filename = ${JSON.stringify(args.path)};\n` : '';
      return { contents: own + source, loader: args.path.endsWith('.ts') ? 'ts' : 'js' };
    });
  },
};

async function build(file) {
  // Built in a folder of this process's own under its final name (the bundle names its map by
  // file name); the map moves into place first, then the bundle, each whole.
  const scratch = `${file}.${process.pid}.partial`;
  const esbuild = require('esbuild');
  try {
    await esbuild.build({
      entryPoints: [join(ROOT, 'client', 'cli.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      outfile: join(scratch, basename(file)),
      sourcemap: 'linked',
      sourcesContent: false,
      logLevel: 'silent',
      plugins: [dexPlugin],
    });
    await esbuild.stop(); // its service process would otherwise idle beside a long-running command (dex worker)
    renameSync(join(scratch, `${basename(file)}.map`), `${file}.map`);
    renameSync(join(scratch, basename(file)), file);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function prune(dir) {
  const bundles = readdirSync(dir)
    .filter((name) => name.endsWith('.js'))
    .map((name) => ({ name, at: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const { name } of bundles.slice(KEEP)) {
    rmSync(join(dir, name), { force: true });
    rmSync(join(dir, `${name}.map`), { force: true });
  }
}

/**
 * Path of this code version's CLI bundle, built when missing; undefined when it cannot be had (a
 * cache dex cannot write, no esbuild), and the CLI then runs through tsx as before.
 */
async function cliBundle() {
  if (process.env.DEX_CLI_FROM_SOURCE) return undefined;
  try {
    const dir = join(cacheDir(), 'cli-bundles');
    const file = join(dir, `${codeVersion()}.js`);
    try {
      statSync(file);
      return file;
    } catch {
      // not built yet
    }
    mkdirSync(dir, { recursive: true });
    await build(file);
    prune(dir);
    return file;
  } catch {
    return undefined;
  }
}

module.exports = { cliBundle };

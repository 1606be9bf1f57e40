/**
 * Moves files with `git mv` and rewrites every relative module specifier that names one of them
 * (`from '…'`, `import('…')`, `require('…')`, `vi.mock('…')`), in the moved files and in every
 * other file of code, so the tree typechecks after a move as it did before. Used by
 * scripts/layout-tests.ts; `npx tsx scripts/move-modules.ts OLD NEW [OLD NEW …]` moves by hand.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Folders never searched for importers. */
const SKIPPED = ['node_modules', '.git', 'histories', 'results'];
/** Files whose mentions of a moved file's path (`core/run/definitions.ts`, from the repository's root) are rewritten. */
const TEXT = /\.(ts|mts|cts|js|mjs|cjs|md|json|ya?ml|sh)$|^run$/;
/** Files whose specifiers are rewritten. */
const CODE = /\.(ts|mts|cts|js|mjs|cjs)$/;
/** A relative specifier in an import, export, dynamic import, require or vi.mock. */
const SPECIFIER = /((?:from|import|require|vi\.mock|vi\.importActual)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]*)\2/g;

/** Every file below `root` whose name `pattern` matches. */
function filesBelow(root: string, pattern: RegExp): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (!SKIPPED.includes(name)) walk(path);
      } else if (pattern.test(name)) found.push(path);
    }
  };
  walk(root);
  return found;
}

/** `text` with every mention of a moved path (`old` → `new`, from the root) rewritten. */
function withPathsMoved(text: string, paths: [string, string][]): string {
  let next = text;
  for (const [a, b] of paths) {
    const escaped = a.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    next = next.replace(new RegExp(`(?<![\\w/.-])${escaped}(?![\\w-])`, 'g'), b);
  }
  return next;
}

/** The file a specifier names from `dir`, as a path, or undefined when none exists. */
function resolveSpecifier(dir: string, spec: string, exists: (path: string) => boolean): string | undefined {
  const base = resolve(dir, spec);
  return [base, `${base}.ts`, `${base}.mts`, join(base, 'index.ts')].find((p) => exists(p) && !(existsSync(p) && statSync(p).isDirectory()));
}

/** `spec` rewritten to name `target` from `dir`, in the form it had (with or without its extension, as an index or not). */
function specifierFor(dir: string, target: string, spec: string): string {
  let path = relative(dir, target);
  const named = resolve(dir, spec);
  if (!named.endsWith('.ts') && target.endsWith('/index.ts') && !named.endsWith('/index')) path = dirname(path);
  else if (!/\.(ts|mts|js|mjs|cjs|json)$/.test(spec)) path = path.replace(/\.(ts|mts)$/, '');
  if (path === '') path = '.';
  return path.startsWith('.') ? path : `./${path}`;
}

/**
 * Moves each `from` → `to` of `moves` (paths relative to `root`) and rewrites the specifiers
 * that named them. Returns how many files were rewritten.
 */
export function moveModules(root: string, moves: [string, string][]): number {
  const to = new Map(moves.map(([a, b]) => [resolve(root, a), resolve(root, b)]));
  const files = filesBelow(root, CODE);
  const before = new Set(files);
  // Read every file at its old place, rewrite as it will read at its new place.
  const rewritten = new Map<string, string>();
  for (const file of files) {
    const oldDir = dirname(file);
    const newFile = to.get(file) ?? file;
    const newDir = dirname(newFile);
    const text = readFileSync(file, 'utf8');
    const next = text.replace(SPECIFIER, (whole, lead: string, quote: string, spec: string, at: number) => {
      // Code quoted in a string (a snippet a test lints as another file) is left as written.
      const lineBefore = text.slice(text.lastIndexOf('\n', at) + 1, at);
      if ((lineBefore.split('"').length - 1) % 2 === 1 || (lineBefore.split('`').length - 1) % 2 === 1) return whole;
      const target = resolveSpecifier(oldDir, spec, (p) => before.has(p) || existsSync(p));
      if (!target) return whole;
      const moved = to.get(target) ?? target;
      if (moved === target && newDir === oldDir) return whole;
      return `${lead}${quote}${specifierFor(newDir, moved, spec)}${quote}`;
    });
    if (next !== text) rewritten.set(file, next);
  }
  for (const [a, b] of to) {
    mkdirSync(dirname(b), { recursive: true });
    execFileSync('git', ['mv', relative(root, a), relative(root, b)], { cwd: root });
  }
  for (const [file, text] of rewritten) writeFileSync(to.get(file) ?? file, text);
  // Then the mentions of moved paths in comments, docs, configs and CI.
  const paths = moves.map(([a, b]): [string, string] => [relative(root, resolve(root, a)), relative(root, resolve(root, b))]);
  const texts = [...filesBelow(root, TEXT), join(root, '.ci', 'run')].filter((f, i, all) => existsSync(f) && all.indexOf(f) === i);
  for (const file of texts) {
    const text = readFileSync(file, 'utf8');
    const next = withPathsMoved(text, paths);
    if (next !== text) {
      writeFileSync(file, next);
      rewritten.set(file, next);
    }
  }
  return rewritten.size;
}

if (require.main === module) {
  const args = process.argv.slice(2);
  if (args.length === 0 || args.length % 2 !== 0) {
    console.error('usage: npx tsx scripts/move-modules.ts OLD NEW [OLD NEW …]');
    process.exit(2);
  }
  const moves: [string, string][] = [];
  for (let i = 0; i < args.length; i += 2) moves.push([args[i], args[i + 1]]);
  const root = resolve(__dirname, '..');
  console.log(`moved ${moves.length} files, rewrote ${moveModules(root, moves)}`);
}

import { readFileSync, readdirSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..', '..');
/** The runtime folders (docs/architecture.md): every file in them counts, not only code. */
const SOURCE = ['workflows', 'activities', 'host', 'client', 'core', 'store', 'worker', 'tracing'];
/** What is not the repository's own code: installed packages, git, recorded histories and bench results (data, written by tools). */
const NOT_CODE = ['node_modules', '.git', 'test/histories', 'bench/results'];
/** Files that are source or test code. */
const CODE = ['.ts', '.mts', '.mjs', '.js', '.cjs', '.py', '.sh'];
/** Files a folder may hold before it is rooms in disguise. */
const MAX_FILES = 15;
/** Lines a file may have before it is two files. */
const MAX_LINES = 300;

/** Every folder below `dirs` of `root` but what `skip` names, and its files. */
function folders(root: string, dirs: string[], skip: string[] = []): { folder: string; files: string[] }[] {
  const found: { folder: string; files: string[] }[] = [];
  const walk = (dir: string) => {
    if (skip.includes(relative(root, dir))) return;
    const entries = readdirSync(dir).map((name) => join(dir, name));
    found.push({ folder: relative(root, dir), files: entries.filter((p) => statSync(p).isFile()) });
    for (const entry of entries) if (statSync(entry).isDirectory()) walk(entry);
  };
  for (const dir of dirs) walk(join(root, dir));
  return found;
}

/** Every folder of the repository's own code. */
const everyFolder = () => folders(ROOT, ['.'], NOT_CODE);

describe('the house (docs/architecture.md#folders)', () => {
  it(`has no runtime folder of more than ${MAX_FILES} files`, () => {
    const crowded = folders(ROOT, SOURCE).filter((f) => f.files.length > MAX_FILES).map((f) => `${f.folder}: ${f.files.length}`);
    expect(crowded).toEqual([]);
  });

  it(`has no folder anywhere (bench/, scripts/, test/ too) of more than ${MAX_FILES} source or test files`, () => {
    const crowded = everyFolder()
      .filter((f) => f.files.filter((p) => CODE.includes(extname(p))).length > MAX_FILES)
      .map((f) => f.folder);
    expect(crowded).toEqual([]);
  });

  it(`has no source or test file over ${MAX_LINES} lines`, () => {
    const long = everyFolder()
      .flatMap((f) => f.files.filter((p) => CODE.includes(extname(p))))
      .filter((p) => readFileSync(p, 'utf8').split('\n').length > MAX_LINES + 1)
      .map((p) => relative(ROOT, p));
    expect(long).toEqual([]);
  });
});

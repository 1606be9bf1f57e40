import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..');
/** The runtime folders (docs/architecture.md). */
const SOURCE = ['workflows', 'activities', 'host', 'client', 'core', 'store', 'worker', 'tracing'];
/** Files a folder may hold before it is rooms in disguise. */
const MAX_FILES = 15;
/** Lines a file may have before it is two files. */
const MAX_LINES = 300;

/** Every folder below the runtime folders, and its files. */
function folders(): { folder: string; files: string[] }[] {
  const found: { folder: string; files: string[] }[] = [];
  const walk = (dir: string) => {
    const entries = readdirSync(dir).map((name) => join(dir, name));
    found.push({ folder: relative(ROOT, dir), files: entries.filter((p) => statSync(p).isFile()) });
    for (const entry of entries) if (statSync(entry).isDirectory()) walk(entry);
  };
  for (const dir of SOURCE) walk(join(ROOT, dir));
  return found;
}

describe('the house (docs/architecture.md#folders)', () => {
  it(`has no folder of more than ${MAX_FILES} files`, () => {
    const crowded = folders().filter((f) => f.files.length > MAX_FILES).map((f) => `${f.folder}: ${f.files.length}`);
    expect(crowded).toEqual([]);
  });

  it(`has no source file over ${MAX_LINES} lines`, () => {
    const long = folders()
      .flatMap((f) => f.files.filter((p) => p.endsWith('.ts')))
      .map((p) => ({ file: relative(ROOT, p), lines: readFileSync(p, 'utf8').split('\n').length }))
      .filter((f) => f.lines > MAX_LINES + 1);
    expect(long).toEqual([]);
  });
});

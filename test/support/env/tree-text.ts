import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every file under `dir` as one text (SQLite's database and WAL included, read as latin1 so any
 * byte is kept): what the leak tests search for a secret. The dependency cache is left out.
 */
export function allText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .filter((path) => !path.includes('deps-cache') && statSync(path).size < 64 * 1024 * 1024)
    .map((path) => readFileSync(path).toString('latin1'))
    .join('\n');
}

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A sheet file with `text` (or these lines) in a folder of its own; its path. */
export function sheetFile(text: string | string[], name = 'case.sheet.yaml'): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dex-sheet-')), name);
  writeFileSync(file, Array.isArray(text) ? text.join('\n') + '\n' : text);
  return file;
}

/** The error `fn` throws; fails the test when it throws none. */
export function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
}

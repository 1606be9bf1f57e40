import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unusedExports } from '../support/house/export-use';
import { sourceFiles } from '../support/house/import-graph';

const ROOT = join(__dirname, '..', '..');
const RUNTIME = ['workflows', 'activities', 'host', 'client', 'core', 'store', 'worker', 'tracing'];
/** Every folder whose code may use the runtime's exports. */
const USERS = [...RUNTIME, 'bench', 'scripts', 'test', 'examples'];

/**
 * Exports no file of dex imports, on purpose: what is loaded by path or by name from outside.
 * bin/dex.js calls runCli; the worker loads the workflow interceptors by path; `dex/testing` is
 * the package's public entry point (package.json exports); the pull-request types are the
 * contract of issue 40's landing, agreed before its parts were built.
 */
const ENTRY_POINTS = ['client/cli.ts: runCli', 'workflows/tracing-interceptors.ts: interceptors'];
const PUBLIC_FILES = ['client/testing/index.ts', 'core/roadmap/pull-request-types.ts'];

describe('exports (docs/architecture.md#folders)', () => {
  it('each is imported by another file: nothing public for nothing, nothing dead', () => {
    const unused = unusedExports(ROOT, sourceFiles(ROOT, RUNTIME), sourceFiles(ROOT, USERS))
      .map((u) => u.at)
      .filter((at) => !ENTRY_POINTS.includes(at) && !PUBLIC_FILES.some((file) => at.startsWith(`${file}: `)));
    expect(unused).toEqual([]);
  });

  it('none is code only tests run: an export the runtime never imports is at least used in its own file', () => {
    const testOnly = unusedExports(ROOT, sourceFiles(ROOT, RUNTIME), sourceFiles(ROOT, USERS.filter((folder) => folder !== 'test')))
      .filter((u) => !u.usedInFile)
      .map((u) => u.at)
      .filter((at) => !ENTRY_POINTS.includes(at) && !PUBLIC_FILES.some((file) => at.startsWith(`${file}: `)));
    expect(testOnly).toEqual([]);
  });

  it('the check finds an export made for nothing on purpose, and one only its own file uses', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dex-exports-'));
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    write('src/a.ts', 'export const used = 1;\nexport const dead = 2;\nexport function local(): number {\n  return 3;\n}\nexport const twice = local();\n');
    write('src/b.ts', "import { used, twice } from './a';\nimport type * as C from './c';\nexport const b: C.T = used + twice;\n");
    write('src/c.ts', 'export type T = number;\nexport type U = string;\n');
    write('src/d.ts', "import('./b').then((m) => m.b);\n");
    expect(unusedExports(dir, sourceFiles(dir, ['src']), sourceFiles(dir, ['src']))).toEqual([
      { at: 'src/a.ts: dead', usedInFile: false },
      { at: 'src/a.ts: local', usedInFile: true },
    ]);
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCycles, sourceFiles } from '../support/house/import-graph';

const ROOT = join(__dirname, '..', '..');
/** Every folder of code: the runtime's arrows point down (docs/architecture.md), so none may lead back; bench/, scripts/ and test/'s support code are held to the same. */
const SOURCE = ['workflows', 'activities', 'host', 'client', 'core', 'store', 'worker', 'tracing', 'bench', 'scripts', 'test', 'examples'];

describe('imports', () => {
  it('form no circle anywhere, bench/ and test/ included, type-only imports too', () => {
    expect(importCycles(ROOT, sourceFiles(ROOT, SOURCE))).toEqual([]);
  });

  it('the check finds a circle made on purpose, through a type-only import too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dex-cycle-'));
    writeFileSync(join(dir, 'a.ts'), "import { b } from './b';\nexport const a = () => b;\n");
    writeFileSync(join(dir, 'b.ts'), "import type { C } from './c';\nexport const b = (c?: C) => c;\n");
    writeFileSync(join(dir, 'c.ts'), "import { a } from './a';\nexport type C = ReturnType<typeof a>;\n");
    writeFileSync(join(dir, 'd.ts'), "import { a } from './a';\nexport const d = a;\n");
    expect(importCycles(dir, sourceFiles(dir, ['.']))).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });
});

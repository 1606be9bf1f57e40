/**
 * The import graph of dex's source (relative imports, type-only ones included: a circle of types
 * is still a circle a reader has to untangle), its circles and its arrows between folders, for
 * test/house/import-cycles.test.ts and test/house/import-direction.test.ts.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** Folders that hold data, not code: recorded histories and the files tests copy into repositories. */
const SKIPPED = ['node_modules', 'histories', 'results'];

/** Every .ts file below `dirs` of `root`. */
export function sourceFiles(root: string, dirs: string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (!SKIPPED.includes(name)) walk(path);
      } else if (path.endsWith('.ts')) files.push(path);
    }
  };
  for (const dir of dirs) if (existsSync(join(root, dir))) walk(join(root, dir));
  return files;
}

/** The files `file` imports or re-exports from, by relative specifier. */
export function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const targets: string[] = [];
  for (const statement of source.statements) {
    const spec = (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier;
    if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith('.')) continue;
    const base = resolve(dirname(file), spec.text);
    const found = [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
    if (found) targets.push(found);
  }
  return targets;
}

/** The circles among `files` (strongly connected parts of more than one file), each as paths relative to `root`. */
export function importCycles(root: string, files: string[]): string[][] {
  const graph = new Map(files.map((file) => [file, importsOf(file)]));
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  // Tarjan's algorithm.
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const part: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      part.push(relative(root, member));
    } while (member !== file);
    if (part.length > 1) cycles.push(part.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

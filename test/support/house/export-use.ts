/**
 * Which exports of dex's code another file uses, for test/house/exports.test.ts: every export of a file
 * named by an import or re-export elsewhere (a namespace import or `export *` uses them all).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** An export of a file: its name, and whether the file itself uses it beside exporting it. */
interface Export {
  file: string;
  name: string;
  usedInFile: boolean;
}

const resolveFrom = (file: string, spec: string): string | undefined => {
  const base = resolve(dirname(file), spec);
  return [`${base}.ts`, join(base, 'index.ts'), base].find((candidate) => candidate.endsWith('.ts') && existsSync(candidate));
};

/** The names `file` exports (declarations and `export { … }` lists; not re-exports from elsewhere). */
function exportsOf(file: string, source: ts.SourceFile): Export[] {
  const names: string[] = [];
  for (const statement of source.statements) {
    const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined;
    const exported = modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) && !modifiers.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
    if (exported) {
      if (ts.isVariableStatement(statement)) {
        for (const d of statement.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
      } else if ('name' in statement && statement.name && ts.isIdentifier(statement.name as ts.Node)) names.push((statement.name as ts.Identifier).text);
    } else if (ts.isExportDeclaration(statement) && !statement.moduleSpecifier && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const e of statement.exportClause.elements) names.push(e.name.text);
    }
  }
  const text = source.text;
  return names.map((name) => {
    const uses = text.match(new RegExp(`\\b${name}\\b`, 'g'))?.length ?? 0;
    return { file, name, usedInFile: uses > 1 };
  });
}

/** What each file imports from each other: `file → names`, `*` for all of them. */
function importsOf(file: string, source: ts.SourceFile, into: Map<string, Set<string>>): void {
  const use = (target: string | undefined, name: string) => {
    if (!target) return;
    if (!into.has(target)) into.set(target, new Set());
    into.get(target)!.add(name);
  };
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) && node.moduleSpecifier.text.startsWith('.')) {
      const target = resolveFrom(file, node.moduleSpecifier.text);
      if (ts.isImportDeclaration(node)) {
        const clause = node.importClause;
        if (!clause) use(target, '*');
        else if (clause.namedBindings && ts.isNamespaceImport(clause.namedBindings)) use(target, '*');
        else if (clause.namedBindings) for (const e of clause.namedBindings.elements) use(target, (e.propertyName ?? e.name).text);
        if (clause?.name) use(target, 'default');
      } else if (!node.exportClause || ts.isNamespaceExport(node.exportClause)) use(target, '*');
      else for (const e of node.exportClause.elements) use(target, (e.propertyName ?? e.name).text);
    }
    // import('./x') and typeof import('./x'): every export.
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0]) && node.arguments[0].text.startsWith('.')) {
      use(resolveFrom(file, node.arguments[0].text), '*');
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal) && node.argument.literal.text.startsWith('.')) {
      use(resolveFrom(file, node.argument.literal.text), node.qualifier && ts.isIdentifier(node.qualifier) ? node.qualifier.text : '*');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

/** The exports of `checked` that no file of `users` imports, as `file: name`, and whether the file itself uses them. */
export function unusedExports(root: string, checked: string[], users: string[]): { at: string; usedInFile: boolean }[] {
  const sources = new Map<string, ts.SourceFile>();
  const sourceOf = (file: string) => {
    if (!sources.has(file)) sources.set(file, ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true));
    return sources.get(file)!;
  };
  const imported = new Map<string, Set<string>>();
  for (const file of users) importsOf(file, sourceOf(file), imported);
  return checked
    .flatMap((file) => exportsOf(file, sourceOf(file)))
    .filter((e) => !imported.get(e.file)?.has(e.name) && !imported.get(e.file)?.has('*'))
    .map((e) => ({ at: `${relative(root, e.file)}: ${e.name}`, usedInFile: e.usedInFile }));
}

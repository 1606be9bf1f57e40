import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';

/** How deep a `**` workspace pattern is followed: monorepos nest packages two or three folders down. */
const MAX_DEPTH = 4;

/** The workspace patterns of `dir`: pnpm-workspace.yaml's `packages:` list, else package.json's `workspaces` (an array, or yarn's `{ packages }`). */
function patterns(dir: string): string[] {
  try {
    const yaml = readFileSync(join(dir, 'pnpm-workspace.yaml'), 'utf8');
    const block = /^packages:\s*\n((?:[ \t]+-.*\n?|[ \t]*#.*\n?|[ \t]*\n)*)/m.exec(yaml)?.[1] ?? '';
    return [...block.matchAll(/^[ \t]+-\s*["']?([^"'#\n]+?)["']?\s*(?:#.*)?$/gm)].map((m) => m[1]);
  } catch {
    // No pnpm workspace: package.json says.
  }
  try {
    const workspaces = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { workspaces?: unknown }).workspaces;
    const list = Array.isArray(workspaces) ? workspaces : (workspaces as { packages?: unknown } | undefined)?.packages;
    return Array.isArray(list) ? list.filter((p): p is string => typeof p === 'string') : [];
  } catch {
    return [];
  }
}

const subfolders = (dir: string): string[] => {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory() && e.name !== 'node_modules' && !e.name.startsWith('.')).map((e) => e.name);
  } catch {
    return [];
  }
};

/** The folders (relative) of `dir` matching one workspace pattern: `a/b`, `a/*`, `a/**`; a `*` inside a name matches as a glob. */
function expand(dir: string, pattern: string): string[] {
  const parts = pattern.replace(/^\.\//, '').replace(/\/+$/, '').split('/').filter(Boolean);
  if (parts.some((p) => p === '..')) return [];
  let found = [''];
  for (const part of parts) {
    const next: string[] = [];
    for (const base of found) {
      if (part === '**') {
        const walk = (rel: string, depth: number) => {
          next.push(rel);
          if (depth < MAX_DEPTH) for (const name of subfolders(join(dir, rel))) walk(rel ? `${rel}/${name}` : name, depth + 1);
        };
        walk(base, 0);
      } else if (part.includes('*')) {
        const glob = new RegExp(`^${part.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
        next.push(...subfolders(join(dir, base)).filter((name) => glob.test(name)).map((name) => (base ? `${base}/${name}` : name)));
      } else next.push(base ? `${base}/${part}` : part);
    }
    found = next;
  }
  return found;
}

/** True when `rel` is a folder of `dir` reached through no symbolic link: setup removes and fills its node_modules. */
function inside(dir: string, rel: string): boolean {
  try {
    return realpathSync(join(dir, rel)) === join(realpathSync(dir), rel);
  } catch {
    return false;
  }
}

/**
 * The workspace packages of a monorepo at `dir` (relative folders holding a package.json), from
 * its workspace patterns, minus those a `!pattern` excludes. pnpm gives each its own node_modules,
 * which setup must keep with the root's (docs/real-repositories.md#workspaces).
 */
export function workspacePackages(dir: string): string[] {
  const all = patterns(dir).map((p) => p.trim());
  const excluded = new Set(all.filter((p) => p.startsWith('!')).flatMap((p) => expand(dir, p.slice(1))));
  const included = all.filter((p) => !p.startsWith('!')).flatMap((p) => expand(dir, p));
  return [...new Set(included)].filter((rel) => rel && !excluded.has(rel) && existsSync(join(dir, rel, 'package.json')) && inside(dir, rel)).sort();
}

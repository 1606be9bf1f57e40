import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../support/house/import-graph';

const ROOT = join(__dirname, '..', '..');
/** Every folder whose code may cite a page of docs/. */
const CODE = ['workflows', 'activities', 'host', 'client', 'core', 'store', 'worker', 'tracing', 'bench', 'scripts', 'test', 'examples'];

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown page: its headings' (a repeated one gets `-1`, `-2`), and explicit `<a id>`/`<a name>`. */
function anchorsOf(page: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of page.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = anchorOf(heading[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  }
  return anchors;
}

/** Every `docs/<page>.md#<anchor>` (or `<page>.md#<anchor>` of a page in docs/) cited in `files` whose page or anchor does not exist. */
function brokenCitations(root: string, files: string[]): string[] {
  const pages = new Map<string, Set<string> | undefined>();
  const anchors = (page: string) => {
    if (!pages.has(page)) {
      const path = join(root, 'docs', page);
      pages.set(page, existsSync(path) ? anchorsOf(readFileSync(path, 'utf8')) : undefined);
    }
    return pages.get(page);
  };
  const broken: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?<![\w/.-])(?:docs\/)?([a-z0-9-]+\.md)#([\w-]+)/g)) {
      const [cited, page, anchor] = m;
      const known = anchors(page);
      if (!m[0].startsWith('docs/') && !known) continue; // not a page of docs/ (a README, another project's)
      if (!known?.has(anchor)) broken.push(`${relative(root, file)}: ${cited}`);
    }
  }
  return [...new Set(broken)].sort();
}

describe('docs anchors cited in code', () => {
  it('all exist', () => {
    expect(brokenCitations(ROOT, sourceFiles(ROOT, CODE))).toEqual([]);
  });

  it('the check finds a page or an anchor broken on purpose', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dex-anchors-'));
    mkdirSync(join(dir, 'docs'));
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'docs', 'page.md'), '# Page\n\n## Where a dispatch waits (2 ms)\n\n```\n## not a heading\n```\n## Twice\n## Twice\n');
    // Written in pieces, so this file cites no missing page itself.
    const cite = (page: string, anchor: string) => `// (${['docs', page].join('/')}#${anchor})\n`;
    const text = cite('page.md', 'where-a-dispatch-waits-2-ms') + cite('page.md', 'twice-1') + cite('page.md', 'not-a-heading') + cite('gone.md', 'x');
    writeFileSync(join(dir, 'src', 'a.ts'), text + '// (page.md#page), (other.md#x)\n');
    const broken = ['gone.md#x', 'page.md#not-a-heading'].map((c) => `src/a.ts: ${['docs', c].join('/')}`);
    expect(brokenCitations(dir, sourceFiles(dir, ['src']))).toEqual(broken);
  });
});

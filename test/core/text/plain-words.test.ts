import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { plural } from '../../../core/text/plural';

const ROOT = join(__dirname, '..', '..', '..');

/** Every TypeScript source file of the runtime folders. */
function sources(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.ts')) found.push(path);
    }
  };
  for (const dir of ['workflows', 'activities', 'host', 'client', 'core', 'store', 'worker', 'tracing']) walk(join(ROOT, dir));
  return found;
}

describe('plain words', () => {
  it('counts in the singular for one and the plural otherwise', () => {
    expect([0, 1, 2].map((n) => plural(n, 'workflow run'))).toEqual(['0 workflow runs', '1 workflow run', '2 workflow runs']);
    expect(plural(1, 'entry', 'entries')).toBe('1 entry');
    expect(plural(3, 'entry', 'entries')).toBe('3 entries');
  });

  it('writes no "run(s)" for a person: the text counts with plural()', () => {
    const hedged = sources().flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ where: `${relative(ROOT, file)}:${i + 1}`, line }))
        .filter(({ line }) => (line.match(/'[^']*'|"[^"]*"|`[^`]*`/g) ?? []).some((text) => /[a-z]\(s\)/.test(text.replace(/\$\{[^}]*\}/g, '')))),
    );
    expect(hedged.map((h) => h.where)).toEqual([]);
  });
});

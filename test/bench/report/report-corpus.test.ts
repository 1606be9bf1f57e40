import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusSection } from '../../../bench/report/report-corpus';

const result = (name: string) => ({ name, commit: 'c', plan: [], verify: ['npm test'], verifySource: 'detected', passed: true, log: '', ranAt: '2026-12-07T04:00:00.000Z' });

describe('the Set-up corpus section of docs/performance.md (bench/report/report-corpus.ts)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dex-corpus-section-'));
  const results = join(dir, 'setup-corpus.json');
  writeFileSync(results, JSON.stringify({ projects: { a: result('a') } }));

  it("names the manifest's projects that have no result yet", () => {
    const manifest = join(dir, 'manifest.yaml');
    writeFileSync(manifest, 'projects:\n  a: { repo: o/a }\n  jsoup: { repo: jhy/jsoup, kind: maven }\n');
    const section = corpusSection(results, manifest).join('\n');
    expect(section).toContain("Not run yet: 1 of the manifest's projects have no result here (jsoup).");
    expect(section).toContain('**1 of 1 projects (100%)');
  });

  it('says nothing of the manifest when every project has a result, and nothing at all without results', () => {
    const manifest = join(dir, 'all.yaml');
    writeFileSync(manifest, 'projects:\n  a: { repo: o/a }\n');
    expect(corpusSection(results, manifest).join('\n')).not.toContain('Not run yet');
    expect(corpusSection(join(dir, 'none.json'), manifest)).toEqual([]);
  });
});

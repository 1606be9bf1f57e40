import { describe, expect, it } from 'vitest';
import { timesMarkdown } from '../../../bench/corpus/setup-corpus-times';
import type { CorpusResult } from '../../../bench/corpus/setup-corpus-project';

const result = (over: Partial<CorpusResult>): CorpusResult => ({
  name: 'p',
  commit: 'c',
  plan: [],
  verify: ['mvn -B -o test'],
  verifySource: 'detected',
  passed: true,
  log: '',
  ranAt: '2026-12-07T04:00:00.000Z',
  ...over,
});

describe('the set-up corpus times by ecosystem (bench/corpus/setup-corpus-times.ts)', () => {
  const rows = timesMarkdown([
    result({ name: 'a', kind: 'maven (wrapper, multi-module)', coldSeconds: 30, warmSeconds: 1, verifySeconds: 20 }),
    result({ name: 'b', kind: 'maven', coldSeconds: 10, warmSeconds: 0.5, verifySeconds: 40 }),
    result({ name: 'c', kind: 'maven', coldSeconds: 50, warmSeconds: 2, verifySeconds: 30, passed: false }),
    result({ name: 'd', kind: 'yarn berry', passed: false, setupError: 'setup failed' }),
    result({ name: 'e', kind: 'cmake + ctest', coldSeconds: 4, warmSeconds: 0, verifySeconds: 6, verifySource: 'manifest' }),
  ]);
  const row = (name: string) => rows.find((r) => r.startsWith(`| ${name} |`));

  it("groups projects by their kind's first word, with the median and total of the setups that ran", () => {
    expect(row('maven')).toBe('| maven | 3 | 2 | 30.0 | 90.0 | 1.0 | 3.5 | 30.0 |');
  });

  it('shows a dash where no setup ran, and counts a pass with a written verify as not zero-config', () => {
    expect(row('yarn')).toBe('| yarn | 1 | 0 | – | – | – | – | – |');
    expect(row('cmake')).toBe('| cmake | 1 | 0 | 4.0 | 4.0 | 0.0 | 0.0 | 6.0 |');
  });

  it('ends with every project together', () => {
    // The median is the nearest rank's (bench/stats.ts): the lower middle of an even count.
    expect(rows.at(-1)).toBe('| all | 5 | 2 | 10.0 | 94.0 | 0.5 | 3.5 | 20.0 |');
  });
});

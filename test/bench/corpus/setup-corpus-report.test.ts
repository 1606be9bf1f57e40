import { describe, expect, it } from 'vitest';
import { corpusMarkdown, shortPlan, successRate, whyNot } from '../../../bench/corpus/setup-corpus-report';
import type { CorpusResult } from '../../../bench/corpus/setup-corpus-project';

const result = (over: Partial<CorpusResult>): CorpusResult => ({
  name: 'p',
  commit: 'c',
  plan: [],
  verify: ['npm test'],
  verifySource: 'detected',
  passed: false,
  log: '',
  ranAt: '2026-11-28T17:00:00.000Z',
  ...over,
});

describe('the set-up corpus report (bench/setup-corpus.ts)', () => {
  it('counts every exclusion as a failure and a verify the manifest gives as a miss, beside the rate without exclusions', () => {
    const rate = successRate([
      result({ name: 'a', passed: true }),
      result({ name: 'b', passed: true, verifySource: 'manifest' }),
      result({ name: 'c', verifyFailure: { command: 'npm test', cause: 'x' } }),
      result({ name: 'd', excluded: 'fails by hand too' }),
    ]);
    expect(rate).toEqual({ all: 4, excluded: 1, zeroConfig: 1, zeroConfigPercent: 25, counted: 3, passed: 2, percent: 66.7 });
  });

  it('heads the report with the zero-config rate, then the rate without exclusions', () => {
    const md = corpusMarkdown([result({ name: 'a', passed: true }), result({ name: 'b', passed: true, verifySource: 'manifest' }), result({ name: 'c', excluded: 'x' })]);
    const headline = md.split('\n')[0];
    expect(headline).toMatch(/^\*\*1 of 3 projects \(33\.3%\) set up and passed/);
    expect(headline).toContain('the 1 excluded project counted as a failure and the 1 project that passed only with a verify the manifest gives counted as a miss of detection');
    expect(headline).toContain('Without the exclusions, 2 of 2 (100%) set up and passed, counting the 1 with a written verify.');
    expect(md).toMatch(/\| b \|.*\| passed, verify written \|/);
  });

  it("keeps a setup failure's cause and drops the install line the plan column shows", () => {
    const error = 'setup failed: python `python3 -m venv /tmp/dex-uv && uv sync --frozen` exited 2 (network only to pypi.org, files.pythonhosted.org): error: Failed to download `pyright==1.1.408`';
    expect(whyNot(result({ setupError: error }))).toBe('setup: python exited 2: error: Failed to download `pyright==1.1.408`');
    expect(whyNot(result({ setupError: `warm: ${error}` }))).toMatch(/^warm: setup: python exited 2: /);
  });

  it('says when a verify passed in the cold worktree but not in the one restored from the cache', () => {
    const why = whyNot(result({ verifyFailure: { command: 'python -m pytest', cause: 'ModuleNotFoundError' }, coldVerifyPassed: true }));
    expect(why).toBe('`python -m pytest`: ModuleNotFoundError (passes in the cold worktree: the restore from the cache broke it)');
  });

  it("shows a plan's last step by program name", () => {
    expect(shortPlan({ ecosystem: 'python', command: 'python3 -m venv /tmp/dex-uv && /tmp/dex-uv/bin/pip install -q uv && UV_PROJECT_ENVIRONMENT=.venv /tmp/dex-uv/bin/uv sync --frozen' })).toBe('python: uv sync --frozen');
    expect(shortPlan({ ecosystem: 'npm', command: 'npm ci --no-audit' })).toBe('npm: npm ci --no-audit');
  });

  it('writes one table row per project, with a pipe in a cause escaped', () => {
    const md = corpusMarkdown([result({ name: 'a', passed: true }), result({ name: 'b', verifyFailure: { command: 'npm test', cause: 'a | b' } })]);
    expect(md.split('\n').filter((l) => l.startsWith('| ['))).toHaveLength(0);
    const rows = md.split('\n').filter((l) => /^\| [ab] \|/.test(l));
    expect(rows).toHaveLength(2);
    expect(rows[1]).toContain('a \\| b');
    expect(md).toContain('**1 of 2 projects (50%)');
    expect(md).toContain('Without the exclusions, 1 of 2 (50%)');
  });
});

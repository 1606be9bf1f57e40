import { describe, expect, it } from 'vitest';
import { attemptLines, attemptMarkdown, attemptsHeadline } from '../../../core/text/attempt-table';
import { DEFAULT_WEIGHTS, describeChoice, rankAttempts, scoreOf } from '../../../core/task/attempt-score';
import type { AttemptChoice, AttemptEvidence, AttemptRow } from '../../../core/task/attempts';

const evidence = (over: Partial<AttemptEvidence>): AttemptEvidence => ({ passed: true, testsFixed: [], testsBroken: [], checksFailed: [], lines: 10, files: 1, ...over });

/** Three attempts as a best-of-3 task's result holds them, scored by the default weights. */
function threeAttempts(): { rows: AttemptRow[]; chosen: AttemptChoice } {
  const rows: AttemptRow[] = [
    { name: 'A', workflowId: 'task-math-fix-1-A', state: 'completed', variant: 'temperature 1', costUsd: 0.39, evidence: evidence({ testsFixed: ['adds'], lines: 61, files: 3, review: 'approve' }) },
    { name: 'B', workflowId: 'task-math-fix-1-B', state: 'failed', variant: 'temperature 0.7', costUsd: 0.2, note: 'verify failed: test/sum.test.js › adds' },
    { name: 'C', workflowId: 'task-math-fix-1-C', state: 'completed', variant: 'temperature 0.4', costUsd: 0.41, evidence: evidence({ testsFixed: ['adds'], lines: 14, review: 'approve' }) },
  ];
  const ranked = rankAttempts(rows, DEFAULT_WEIGHTS);
  return { rows: ranked.rows, chosen: { name: ranked.best!.name, by: 'evidence', reason: describeChoice(ranked.rows, ranked.best!) } };
}

describe('the attempts table (docs/attempts.md)', () => {
  it('lines up every column for a terminal, marks the chosen attempt and gives each note a line', () => {
    const { rows, chosen } = threeAttempts();
    expect(chosen.name).toBe('C');
    expect(rows[2].score).toBe(scoreOf(rows[2].evidence!, 0.41, DEFAULT_WEIGHTS));
    expect(attemptLines(rows, chosen)).toEqual([
      'attempts: 3 tried, 2 passed, chose C: all tests pass, 1 fixed, 14 lines against 61, review approve, $0.4100',
      '  attempt  state      variant          tests          checks  lines  review   cost     score',
      '  A        completed  temperature 1    pass, 1 fixed  pass    61     approve  $0.3900  11.56',
      '  B        failed     temperature 0.7  —              —       —      —        $0.2000  —',
      '* C        completed  temperature 0.4  pass, 1 fixed  pass    14     approve  $0.4100  13.89',
      '  B: verify failed: test/sum.test.js › adds',
    ]);
  });

  it('tells failing tests, broken ones and failing checks apart, and cuts a long hint', () => {
    const rows: AttemptRow[] = [
      { name: 'A', workflowId: 'w-A', state: 'completed', costUsd: 0.1, evidence: evidence({ passed: false, testsBroken: ['parses'], lines: 3 }) },
      { name: 'B', workflowId: 'w-B', state: 'completed', variant: 'hint: try the smallest change that makes every test pass', costUsd: 0.1, evidence: evidence({ passed: false, checksFailed: ['lint', 'build'] }) },
      { name: 'C', workflowId: 'w-C', state: 'completed', costUsd: 0.1, evidence: evidence({ passed: false }) },
    ];
    const lines = attemptLines(rankAttempts(rows, DEFAULT_WEIGHTS).rows, undefined);
    expect(lines[2]).toMatch(/^ {2}A +completed +as configured +fail, 1 broken +pass +3 /);
    expect(lines[3]).toMatch(/^ {2}B +completed +hint: try the smallest change t… +pass +lint, build failed +10 /);
    expect(lines[4]).toMatch(/^ {2}C +completed +as configured +fail +pass +10 /);
    expect(lines.every((line) => !line.startsWith('*'))).toBe(true);
  });

  it('says how the attempts stand before the choice, and who chose when a person did', () => {
    const running: AttemptRow[] = ['A', 'B', 'C'].map((name, i) => ({ name, workflowId: `w-${name}`, state: i ? 'running' : 'completed', costUsd: 0 }));
    expect(attemptsHeadline(running, undefined)).toBe('attempts: 3, 1 completed, 2 running');
    expect(attemptsHeadline(running, { name: 'A', by: 'ana', reason: '3 tried, 1 passed, chose A: all tests pass' })).toBe('attempts: 3 tried, 1 passed, chose A: all tests pass (chosen by ana)');
  });

  it('is a Markdown table for the Web UI and a landing description, the chosen one in bold', () => {
    const { rows, chosen } = threeAttempts();
    expect(attemptMarkdown(rows, chosen).split('\n')).toEqual([
      '| attempt | state | variant | tests | checks | lines | review | cost | score |',
      '|---|---|---|---|---|---|---|---|---|',
      '| A | completed | temperature 1 | pass, 1 fixed | pass | 61 | approve | $0.3900 | 11.56 |',
      '| B | failed | temperature 0.7 | — | — | — | — | $0.2000 | — |',
      '| **C** chosen | completed | temperature 0.4 | pass, 1 fixed | pass | 14 | approve | $0.4100 | 13.89 |',
    ]);
    const piped = attemptMarkdown([{ ...rows[0], variant: 'hint: a | b' }], undefined);
    expect(piped).toContain('hint: a \\| b');
  });
});

/**
 * The set-up corpus's times by ecosystem (bench/setup-corpus.ts): cold and warm setup and the
 * suite's run, median and total, the table docs/performance.md shows above the projects' rows.
 */
import { quantile } from '../stats';
import type { CorpusResult } from './setup-corpus-project';

/** A project's ecosystem: its kind's first word (`maven` of `maven (wrapper, multi-module)`, `yarn` of `yarn berry`). */
function ecosystemOf(r: CorpusResult): string {
  return (r.kind ?? r.plan[0]?.ecosystem ?? 'other').split(/[\s(]/)[0] || 'other';
}

const cell = (values: number[], how: 'median' | 'total') =>
  values.length ? (how === 'median' ? quantile(values, 0.5) : values.reduce((a, b) => a + b, 0)).toFixed(1) : '–';

/**
 * One row per ecosystem: how many projects, how many passed with nothing written, and the
 * seconds of the setups and suites that ran (a project whose setup failed has none).
 */
export function timesMarkdown(results: CorpusResult[]): string[] {
  const groups = new Map<string, CorpusResult[]>();
  for (const r of results) groups.set(ecosystemOf(r), [...(groups.get(ecosystemOf(r)) ?? []), r]);
  const of = (rs: CorpusResult[], key: 'coldSeconds' | 'warmSeconds' | 'verifySeconds') =>
    rs.map((r) => r[key]).filter((s): s is number => s !== undefined);
  const row = (name: string, rs: CorpusResult[]) =>
    `| ${name} | ${rs.length} | ${rs.filter((r) => r.passed && r.verifySource === 'detected').length} | ${cell(of(rs, 'coldSeconds'), 'median')} | ${cell(of(rs, 'coldSeconds'), 'total')} | ${cell(of(rs, 'warmSeconds'), 'median')} | ${cell(of(rs, 'warmSeconds'), 'total')} | ${cell(of(rs, 'verifySeconds'), 'median')} |`;
  return [
    '| ecosystem | projects | passed, nothing written | cold setup s, median | cold s, total | warm setup s, median | warm s, total | suite s, median |',
    '|---|--:|--:|--:|--:|--:|--:|--:|',
    ...[...groups.keys()].sort().map((name) => row(name, groups.get(name)!)),
    row('all', results),
  ];
}

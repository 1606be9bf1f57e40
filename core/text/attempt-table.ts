/**
 * A best-of-N task's attempts as every view shows them (docs/attempts.md): a line for the choice
 * and a table, aligned for `dex status` and the end of `dex task`, in Markdown for the Web UI's
 * details and a landing's merge or pull request description. Pure: the workflows' details use it too.
 */
import type { AttemptChoice, AttemptRow } from '../task/attempts';
import { formatUsd } from './spending';

const HEADER = ['attempt', 'state', 'variant', 'tests', 'checks', 'lines', 'review', 'cost', 'score'];
const NONE = '—';
/** A variant longer than this is cut in the terminal's table (a hint can be a sentence). */
const VARIANT_WIDTH = 32;

/** Tests as the table says them: `pass`, `pass, 2 fixed`, `fail, 1 broken`. */
function testsCell(e: NonNullable<AttemptRow['evidence']>): string {
  // `passed` also needs the checks: tests failed when one broke, or when it did not pass with no check to blame.
  const failed = e.testsBroken.length > 0 || (!e.passed && !e.checksFailed.length);
  return [failed ? 'fail' : 'pass', e.testsFixed.length ? `${e.testsFixed.length} fixed` : '', e.testsBroken.length ? `${e.testsBroken.length} broken` : '']
    .filter(Boolean)
    .join(', ');
}

/** One row's cells, in HEADER's order. */
function cells(r: AttemptRow): string[] {
  const e = r.evidence;
  return [
    r.name,
    r.state,
    r.variant ?? 'as configured',
    e ? testsCell(e) : NONE,
    e ? (e.checksFailed.length ? `${e.checksFailed.join(', ')} failed` : 'pass') : NONE,
    e ? String(e.lines) : NONE,
    e?.review ?? NONE,
    formatUsd(r.costUsd),
    r.score !== undefined ? String(r.score) : NONE,
  ];
}

/** The line above the table: the choice and why, once made, else how the attempts stand. */
export function attemptsHeadline(rows: AttemptRow[], chosen: AttemptChoice | undefined): string {
  if (chosen) return `attempts: ${chosen.reason}${chosen.by === 'evidence' ? '' : ` (chosen by ${chosen.by})`}`;
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.state, (counts.get(r.state) ?? 0) + 1);
  return `attempts: ${rows.length}, ${[...counts].map(([state, n]) => `${n} ${state}`).join(', ')}`;
}

const cut = (text: string, width: number): string => (text.length > width ? `${text.slice(0, width - 1)}…` : text);

/** The attempts for a terminal: the headline, the table with `*` before the chosen one, and each attempt's note under it. */
export function attemptLines(rows: AttemptRow[], chosen: AttemptChoice | undefined): string[] {
  const table = [HEADER, ...rows.map((r) => cells({ ...r, variant: r.variant && cut(r.variant, VARIANT_WIDTH) }))];
  const widths = HEADER.map((_, i) => Math.max(...table.map((row) => row[i].length)));
  const line = (row: string[], mark: string) => `${mark} ${row.map((cell, i) => cell.padEnd(widths[i])).join('  ')}`.trimEnd();
  return [
    attemptsHeadline(rows, chosen),
    line(HEADER, ' '),
    ...rows.map((r, i) => line(table[i + 1], r.name === chosen?.name ? '*' : ' ')),
    ...rows.filter((r) => r.note).map((r) => `  ${r.name}: ${r.note}`),
  ];
}

/** The attempts in Markdown: the table, the chosen one's letter in bold and marked `chosen`. */
export function attemptMarkdown(rows: AttemptRow[], chosen: AttemptChoice | undefined): string {
  const escape = (cell: string) => cell.replace(/\|/g, '\\|');
  const row = (r: AttemptRow) => {
    const [name, ...rest] = cells(r).map(escape);
    return `| ${r.name === chosen?.name ? `**${name}** chosen` : name} | ${rest.join(' | ')} |`;
  };
  return [`| ${HEADER.join(' | ')} |`, `|${HEADER.map(() => '---').join('|')}|`, ...rows.map(row)].join('\n');
}

import type { SheetResult, StatementResult } from '../../core/sheet/sheet-types';
import { formatUsd } from '../../core/text/spending';

/** How much of a value or error a table cell shows. */
const CELL_CHARS = 60;

function cell(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > CELL_CHARS ? `${line.slice(0, CELL_CHARS - 1)}…` : line;
}

function outcome(s: StatementResult): string {
  if (s.error) return cell(`${s.error.code}${s.error.blocked_by ? ` (blocked by ${s.error.blocked_by})` : ''}: ${s.error.message}`);
  const undo = s.undo ? ` [undo ${s.undo}]` : '';
  return cell(s.value ?? '') + undo;
}

/**
 * One line per statement that failed, or whose undo failed, as `FILE:LINE:COLUMN: …` so a
 * person (or a terminal) can jump to it (docs/sheets.md#the-result).
 */
function placesAtFault(r: SheetResult): string[] {
  return r.statements
    .filter((s) => s.status === 'failed' || s.undo === 'failed')
    .filter((s) => s.span)
    .map((s) => {
      const place = `${r.file ?? 'line'}${r.file ? ':' : ' '}${s.span!.line}:${s.span!.column}`;
      const what = s.status === 'failed' ? 'failed' : 'was not undone: its undo failed';
      return `${place}: ${s.id} ${what}${s.source ? `: ${cell(s.source)}` : ''}`;
    });
}

/** A sheet result as lines: phases completed, one table row per statement in plan order, then where the failures are written. */
export function renderSheetResult(r: SheetResult): string[] {
  const rows = [...r.statements]
    .sort((a, b) => a.dag_depth - b.dag_depth || a.index - b.index)
    .map((s) => [String(s.index), s.id, String(s.dag_depth), s.status, outcome(s)]);
  const header = ['#', 'statement', 'depth', 'status', 'value / error'];
  const widths = header.map((h, col) => Math.max(h.length, ...rows.map((row) => row[col].length)));
  const format = (row: string[]) => row.map((c, col) => (col === row.length - 1 ? c : c.padEnd(widths[col]))).join('  ').trimEnd();
  return [
    `phases: ${r.phasesCompleted}/${r.phasesTotal} completed · ${formatUsd(r.costUsd)}`,
    format(header),
    ...rows.map(format),
    ...placesAtFault(r),
  ];
}

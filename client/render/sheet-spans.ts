/**
 * Where each statement of a sheet file stands (docs/sheets.md#the-result): the span that
 * results and errors point at, so a person can jump to the statement.
 */
import { isMap, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import type { SourceSpan } from '../../core/sheet/sheet-types';

/**
 * The span of each item of `statements` in `text` (a sheet file already parsed without error),
 * by index: from its first character to its last, 1-based and inclusive.
 */
export function statementSpans(text: string): (SourceSpan | undefined)[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  const list = isMap(doc.contents) ? doc.contents.get('statements', true) : undefined;
  if (!isSeq(list)) return [];
  return list.items.map((item) => {
    const range = (item as Node | null)?.range;
    if (!range) return undefined;
    // range[1] ends the value; a block value's end takes in the line break and blanks after it.
    let last = range[1] - 1;
    while (last > range[0] && /\s/.test(text[last])) last--;
    const start = lines.linePos(range[0]);
    const end = lines.linePos(last);
    return { line: start.line, column: start.col, endLine: end.line, endColumn: end.col };
  });
}

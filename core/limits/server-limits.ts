/**
 * How much of a person's or a model's text dex puts where the Temporal server keeps it small
 * (docs/interfaces.md#what-a-run-shows-outside-its-query): the memo, static summaries, the current
 * details and search attribute values. The whole text stays in the run's input and dex's store;
 * a 100 KB title made the memo warn and the summary pass the server's limit. Pure: workflows use it.
 */

/** A task's title (or a roadmap's file, a layer's or sheet's name) in the memo and the summary. @default 200 */
export const TITLE_BYTES = 200;

/** One memo field: the core warns about a memo past 2 KiB in all. @default 512 */
export const MEMO_FIELD_BYTES = 512;

/** A static summary: the server keeps 400 bytes of one. @default 400 */
export const SUMMARY_BYTES = 400;

/** The current details: the server keeps 20,000 bytes. @default 16384 */
export const DETAILS_BYTES = 16 * 1024;

/** A text quoted in the current details: a gate's reason, an error. @default 2048 */
export const DETAILS_QUOTE_BYTES = 2 * 1024;

/** A keyword search attribute's value (a repository's, layer's or sheet's name, a phase, a gate). @default 256 */
export const KEYWORD_BYTES = 256;

/** UTF-8 bytes of `text`, counted by code point (no Buffer or TextEncoder: workflow code uses this). */
function utf8Bytes(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** The bytes `text` takes as a JSON payload's data (quotes and escapes included): what the server measures. */
export function encodedBytes(text: string): number {
  return utf8Bytes(JSON.stringify(text));
}

/** What a cut text ends with. */
const CUT = '…';

/**
 * `text` as it is when it takes at most `maxBytes` as a JSON payload, else cut (never inside a
 * character) and ended with `…` so that it does.
 */
export function clipText(text: string, maxBytes: number): string {
  if (encodedBytes(text) <= maxBytes) return text;
  let budget = maxBytes - encodedBytes(CUT);
  let kept = '';
  for (const char of text) {
    budget -= encodedBytes(char) - 2;
    if (budget < 0) break;
    kept += char;
  }
  return kept + CUT;
}

/**
 * An estimate of how many tokens a Claude model counts in a text (docs/layers.md#context-budgets).
 * No tokenizer for today's Claude models can run offline (Anthropic publishes none; the npm
 * `@anthropic-ai/tokenizer` is the Claude 2 one, 25 MB with its WASM), so dex estimates, and
 * errs high: a budget trims a little early rather than send a prompt that is too big.
 *
 * The text is cut into runs, as a BPE pre-tokenizer does, and each run costs what such
 * tokenizers give it: a short word one token, a long word one more per two letters past four,
 * digits one per two, punctuation one per two characters, a CJK character one, an emoji or
 * other wide symbol three, a newline half, long indentation one per sixteen spaces. Calibrated
 * on this repository's docs, code, JSON, chat lines and short German, French, Chinese,
 * Japanese and emoji samples against the Claude 2 tokenizer: 0.97–1.56 times its count (1.1
 * for chat lines, 1.25 for prose), where characters ÷ 4 gave 0.25–1.11 (0.63 for chat lines).
 * Pure and deterministic: workflows and activities count the same.
 */

const RUN = /\p{L}+|\p{N}+|\s+|[^\s\p{L}\p{N}]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const ASCII = /^[\x00-\x7f]*$/;

/** A word of up to this many letters is one token … */
const WORD_LETTERS = 4;
/** … and each this many letters past it one more. */
const LETTERS_PER_EXTRA_TOKEN = 2;
/** Letters per token of a word with non-ASCII letters (accents, other scripts), which BPE splits finer. */
const INTL_LETTERS_PER_TOKEN = 2;
const DIGITS_PER_TOKEN = 2;
const PUNCTUATION_PER_TOKEN = 2;
/** An emoji or other non-ASCII symbol: several UTF-8 bytes, rarely one token. */
const WIDE_SYMBOL_TOKENS = 3;
const SPACES_PER_INDENT_TOKEN = 16;

/** The estimated token count of `text` (see the module comment). */
export function estimateTokens(text: string): number {
  let tokens = 0;
  for (const [run] of text.matchAll(RUN)) tokens += runTokens(run);
  return tokens;
}

function runTokens(run: string): number {
  const first = run[0];
  if (/\p{L}/u.test(first)) return wordTokens(run);
  if (/\p{N}/u.test(first)) return Math.ceil(run.length / DIGITS_PER_TOKEN);
  if (/\s/u.test(first)) return whitespaceTokens(run);
  const chars = Array.from(run);
  const wide = chars.filter((c) => !ASCII.test(c)).length;
  return wide * WIDE_SYMBOL_TOKENS + Math.ceil((chars.length - wide) / PUNCTUATION_PER_TOKEN);
}

function wordTokens(word: string): number {
  const chars = Array.from(word);
  const cjk = chars.filter((c) => CJK.test(c)).length;
  const rest = chars.length - cjk;
  if (rest === 0) return cjk;
  const restTokens = ASCII.test(word)
    ? 1 + Math.floor(Math.max(0, rest - WORD_LETTERS) / LETTERS_PER_EXTRA_TOKEN)
    : Math.ceil(rest / INTL_LETTERS_PER_TOKEN);
  return cjk + restTokens;
}

function whitespaceTokens(run: string): number {
  const newlines = run.split('\n').length - 1;
  // One space joins the word after it; a longer run is indentation.
  const spaces = run.length - newlines;
  return Math.ceil(newlines / 2) + (spaces > 1 ? Math.ceil((spaces - 1) / SPACES_PER_INDENT_TOKEN) : 0);
}

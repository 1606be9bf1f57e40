/**
 * Run memory (docs/roadmaps.md#memory): what each landed task of a roadmap run left for the
 * tasks after it — the files it touched, its summary, its decisions, the failures it hit and
 * what fixed them — rendered into a later task's first prompt within a token limit. Pure: the
 * entries live in the store (store/sqlite/memory-store.ts), history holds only their keys.
 */
import { someOf } from '../text/plural';

/** How much memory a task's first prompt may hold, and, in a roadmap, whose run memory it reads. */
export interface MemoryRef {
  /** Tokens of run memory (earlier tasks of the same roadmap run) in the first prompt. @default 2000 */
  runTokens: number;
  /** Tokens of project memory (the repository's verify commands and kept notes). @default 500 */
  projectTokens: number;
  /** The roadmap run whose landed tasks' memory is shown; absent for a single `dex task`. */
  runKey?: string;
}

/** The memory limits when dex.config.yaml says nothing. */
export const DEFAULT_MEMORY: MemoryRef = { runTokens: 2000, projectTokens: 500 };

/** One landed task's memory. */
export interface RunMemoryEntry {
  taskId: string;
  title: string;
  /** Files its own commits changed (not what a finalize merge brought in). */
  files: string[];
  summary?: string;
  /** From its research, spec and design artifacts, each cut short. */
  decisions: string[];
  /** Failures it was sent back with (its retry contexts), each cut short; its summary is the fix. */
  failures: string[];
}

/** Tokens of `text` as dex estimates them everywhere it bounds a prompt: a token per 4 characters, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** `text` on one line, at most `max` characters (an ellipsis marks a cut). */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, Math.max(0, max - 1))}…` : flat;
}

/** Files listed in an entry before the rest are counted. @default 20 */
const FILES_SHOWN = 20;

/** One entry as prompt text. */
function formatRunEntry(e: RunMemoryEntry): string {
  const lines = [`## ${e.taskId}: ${oneLine(e.title, 120)}`];
  if (e.files.length) {
    lines.push(`- files: ${someOf(e.files, FILES_SHOWN)}`);
  }
  if (e.summary) lines.push(`- summary: ${oneLine(e.summary, 400)}`);
  for (const d of e.decisions) lines.push(`- decision: ${d}`);
  for (const f of e.failures) lines.push(`- failed first: ${f} (fixed, see summary)`);
  return lines.join('\n') + '\n';
}

/** The heading of the run memory section. */
const RUN_HEADING = '\n# What earlier tasks of this roadmap did (newest first)\n\n';

/**
 * The run memory section of a first prompt: entries newest first, as many whole entries as fit
 * in `limitTokens`, then the first one that does not fit cut to what is left (when a useful part
 * fits), and nothing older. Newest first because the latest landed work is what the next task
 * builds on. The whole section, heading included, stays within the limit; '' when nothing fits.
 */
export function renderRunMemory(newestFirst: RunMemoryEntry[], limitTokens: number): string {
  return fitSection(RUN_HEADING, newestFirst.map(formatRunEntry), limitTokens);
}

/** The least characters worth showing of a cut entry. @default 80 */
const MIN_CUT_CHARS = 80;

/** `heading` then `blocks` in order, joined by `between`, within `limitTokens` (estimateTokens of the result never exceeds it). */
export function fitSection(heading: string, blocks: string[], limitTokens: number, between = '\n'): string {
  const maxChars = limitTokens * 4;
  if (!blocks.length || heading.length >= maxChars) return '';
  let text = heading;
  for (const block of blocks) {
    const sep = text === heading ? '' : between;
    if (text.length + sep.length + block.length <= maxChars) {
      text += sep + block;
      continue;
    }
    const room = maxChars - text.length - sep.length - 2; // "…\n"
    if (room >= MIN_CUT_CHARS) text += `${sep}${block.slice(0, room)}…\n`;
    break;
  }
  return text === heading ? '' : text;
}

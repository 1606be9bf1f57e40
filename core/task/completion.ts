/**
 * Finding the completion object a phase ends with (docs/interfaces.md#the-agent-and-the-model). Pure: the workflow
 * sandbox imports it too.
 */
import type { Completion } from './task-types';

/**
 * The completion object in an assistant's final text, looked for in order: the whole text as
 * JSON, a fenced json block, the first balanced `{ … }` that parses as a completion object.
 */
export function extractCompletion(text: string): Completion | null {
  const whole = parseCompletion(text.trim());
  if (whole) return whole;
  for (const match of text.matchAll(/```json[^\S\n]*\n([\s\S]*?)```/gi)) {
    const fenced = parseCompletion(match[1].trim());
    if (fenced) return fenced;
  }
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    // A completion object opens with a key; skipping other braces spares rescanning code blocks.
    if (!/^\{\s*"/.test(text.slice(start, start + 64))) continue;
    const end = matchingBrace(text, start);
    if (end === -1) continue;
    const found = parseCompletion(text.slice(start, end + 1));
    if (found) return found;
  }
  return null;
}

/** `value` as a completion object, or null when it is not one. */
function asCompletion(value: unknown): Completion | null {
  if (typeof value !== 'object' || value === null) return null;
  const { status, summary, reason } = value as Record<string, unknown>;
  if (status === 'complete' && typeof summary === 'string') return { status, summary };
  if ((status === 'blocked' || status === 'continue' || status === 'escalate') && typeof reason === 'string') return { status, reason };
  return null;
}

function parseCompletion(candidate: string): Completion | null {
  if (!candidate.startsWith('{')) return null;
  try {
    return asCompletion(JSON.parse(candidate));
  } catch {
    return null;
  }
}

/** Index of the `}` closing the `{` at `open`, skipping braces inside JSON strings; -1 if none. */
function matchingBrace(text: string, open: number): number {
  let depth = 0;
  let inString = false;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') {
      inString = true;
    } else if (ch === '{') {
      depth++;
    } else if (ch === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

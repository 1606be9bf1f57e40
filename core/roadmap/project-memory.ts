/**
 * Project memory (docs/roadmaps.md#memory): per repository, the verify commands that passed and
 * the notes the model kept with the `remember` tool (or a person with `dex memory --add`), shown
 * in every task's first prompt on that repository within a token limit. Pure.
 */
import { InvalidInput } from '../run/invalid-input';
import { fitSection } from '../run/run-memory';

/** The longest note `remember` or `dex memory --add` keeps, in characters. @default 500 */
export const NOTE_MAX_CHARS = 500;

/** One thing kept about a repository. */
export interface ProjectNote {
  /** The number `dex memory` shows and `--forget N` takes. */
  id: number;
  /** `verify`: a verify command that passed; `note`: a note the model or a person kept. */
  kind: 'verify' | 'note';
  text: string;
  createdAt: string;
}

/** A note's text as kept: whitespace collapsed. Throws InvalidInput when empty or too long. */
export function cleanNote(text: unknown): string {
  if (typeof text !== 'string') throw new InvalidInput('a note must be text');
  const clean = text.replace(/\s+/g, ' ').trim();
  if (!clean) throw new InvalidInput('a note must not be empty');
  if (clean.length > NOTE_MAX_CHARS) throw new InvalidInput(`a note may have at most ${NOTE_MAX_CHARS} characters; this one has ${clean.length}`);
  return clean;
}

/** The key two notes are the same by: case and whitespace do not make a new note. */
export function noteKey(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

const PROJECT_HEADING = '\n# What dex remembers about this repository\n\n';

/**
 * The project memory section: verify commands known to pass first (one block), then notes,
 * newest first, as many as fit in `limitTokens` (the section never exceeds it); '' when empty.
 */
export function renderProjectMemory(notes: ProjectNote[], limitTokens: number): string {
  const verify = notes.filter((n) => n.kind === 'verify').map((n) => `\`${n.text}\``);
  const kept = notes.filter((n) => n.kind === 'note').sort((a, b) => b.id - a.id);
  const blocks = [
    ...(verify.length ? [`- verify commands that passed here: ${verify.join(', ')}\n`] : []),
    ...kept.map((n) => `- ${n.text}\n`),
  ];
  return fitSection(PROJECT_HEADING, blocks, limitTokens, '');
}

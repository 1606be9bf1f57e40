import { repoKeyOf } from '../../host/repo-key';
import { cleanNote, type ProjectNote } from '../../core/roadmap/project-memory';
import { InvalidInput } from '../../core/run/invalid-input';
import { parseOptionsOnly, UsageError, type Output } from '../cli-context';
import { usageOf } from '../command-help';
import { withStore } from '../command-store';
import { readSettings } from '../settings';
import { resolveRepository } from '../requests/task-request';

/**
 * `dex memory [--repo DIR] [--add TEXT | --forget N]`: the repository's project memory in this
 * host's store (docs/roadmaps.md#memory) — the verify commands that passed and the notes kept —
 * listed, added to or forgotten. No Temporal needed, as `dex insights`.
 */
export async function memoryCommand(argv: string[], out: Output): Promise<number> {
  const values = parseOptionsOnly(argv, 'memory');
  if (values.add !== undefined && values.forget !== undefined) throw new UsageError(`--add or --forget, not both: ${usageOf('memory')}`);
  const repo = repoKeyOf(resolveRepository(values.repo ?? process.cwd()));
  return withStore(readSettings().dexHome, async ({ memory }) => {
    if (values.add !== undefined) {
      const { id, added } = await memory.addNote(repo, 'note', cleanNote(values.add));
      out.result(added ? `kept as note ${id}` : `already kept as note ${id}`, { repo, id, added });
      return 0;
    }
    if (values.forget !== undefined) {
      const id = Number(values.forget);
      if (!/^\d+$/.test(values.forget) || !Number.isSafeInteger(id)) throw new InvalidInput(`--forget takes a note's number as \`dex memory\` lists it; got "${values.forget}"`);
      if (!(await memory.forget(repo, id))) throw new InvalidInput(`no note ${id} in the memory of ${repo}`);
      out.result(`forgot note ${id}`, { repo, forgot: id });
      return 0;
    }
    const notes = await memory.notes(repo);
    out.result(notes.length ? [`memory of ${repo}:`, ...notes.map(formatNote)].join('\n') : `nothing remembered about ${repo} yet`, { repo, notes });
    return 0;
  });
}

/** One note as `dex memory` lists it: its number (what --forget takes), kind and text. */
function formatNote(n: ProjectNote): string {
  return `  ${String(n.id).padStart(3)}  ${n.kind === 'verify' ? 'verify passed: ' : ''}${n.text}`;
}

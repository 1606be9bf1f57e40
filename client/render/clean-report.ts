/**
 * How `dex clean` reads (docs/interfaces.md#dex-clean): a line per thing it removes (or, with
 * --dry-run, would remove), a line per run whose leftovers stay and why, what could not be
 * removed, and the total.
 */
import type { CleanEntry } from '../clean/clean-plan';

/** A leftover that could not be removed, and git's or the file system's reason. */
type CleanFailure = CleanEntry & { error: string };

/** What `dex clean` did, as `--json` gives it. */
export interface CleanReport {
  dryRun: boolean;
  /** What it removed; with --dry-run, what it would remove. */
  leftovers: CleanEntry[];
  /** What stays, each with `why`. */
  kept: CleanEntry[];
  failed: CleanFailure[];
}

const NOUNS: Record<CleanEntry['kind'], [string, string]> = {
  worktree: ['worktree', 'worktrees'],
  branch: ['branch', 'branches'],
  base: ['base file', 'base files'],
  sessions: ['Claude Code session folder', 'Claude Code session folders'],
  demo: ['demo repository', 'demo repositories'],
  ref: ['hidden ref', 'hidden refs'],
};

const count = (n: number, kind: CleanEntry['kind']): string => `${n} ${NOUNS[kind][n === 1 ? 0 : 1]}`;

/** `branch dex/task-math-x-1 in /src/math` or `worktree ~/.dex/worktrees/task-math-x-1`. */
const thing = (e: CleanEntry): string => `${NOUNS[e.kind][0]} ${e.path}${(e.kind === 'branch' || e.kind === 'ref') && e.repo ? ` in ${e.repo}` : ''}`;

/** The run and how it ended, in brackets. */
const about = (e: CleanEntry): string => {
  const parts = [e.run, e.state].filter(Boolean);
  return parts.length ? ` (${parts.join(', ')})` : '';
};

/** The text of a report. */
export function renderCleanReport(report: CleanReport): string {
  const verb = report.dryRun ? 'would remove' : 'removed';
  const lines = report.leftovers.map((e) => `${verb} ${thing(e)}${about(e)}`);
  const keptByRun = new Map<string, string[]>();
  for (const e of report.kept) {
    const key = e.run ? `${e.run} (${e.why})` : `${thing(e)} (${e.why})`;
    keptByRun.set(key, [...(keptByRun.get(key) ?? []), e.run ? NOUNS[e.kind][0] : '']);
  }
  for (const [who, things] of keptByRun) lines.push(`kept ${who}${things.some(Boolean) ? `: ${things.filter(Boolean).join(', ')}` : ''}`);
  for (const f of report.failed) lines.push(`could not remove ${thing(f)}${about(f)}: ${f.error}`);
  const kinds = (Object.keys(NOUNS) as CleanEntry['kind'][]).filter((k) => report.leftovers.some((e) => e.kind === k));
  const total = report.leftovers.length;
  lines.push(
    total === 0
      ? 'nothing to clean'
      : `${verb} ${total} ${total === 1 ? 'thing' : 'things'}: ${kinds.map((k) => count(report.leftovers.filter((e) => e.kind === k).length, k)).join(', ')}` +
          (report.dryRun ? ' (--dry-run: nothing was removed)' : ''),
  );
  return lines.join('\n');
}

/**
 * Which of the leftovers found may go, and how (docs/interfaces.md#dex-clean). Nothing of an open
 * run goes, nor of a closed run whose parent is open. A run that ended leaves its worktree and
 * `.base` file; its branch goes only when it did not complete (a completed task's branch is its
 * result, landed or not). A run the server does not know counts as forgotten only when nothing of
 * it changed for the namespace's retention period, since a server forgets a run that long after it ends.
 */
import { realpathSync, rmSync } from 'node:fs';
import { removeDemoRepo, type DemoRepo } from '../demo/demo-repos';
import { deleteBranch, removeWorktree } from './clean-removal';
import type { FoundBranch, FoundWorktree, Scan } from './leftover-scan';
import type { RunFate, RunFates } from './run-fates';

/** One thing `dex clean` removes or keeps, as it reports it (`--json`). */
export interface CleanEntry {
  kind: 'worktree' | 'branch' | 'base' | 'sessions' | 'demo' | 'ref';
  /** The folder or file; for a branch, its name. */
  path: string;
  /** A branch's repository (its checkout's folder); a hidden ref's forge repository (OWNER/NAME). */
  repo?: string;
  /** The run it is of. */
  run?: string;
  /** How that run ended (`failed`, `cancelled`, `completed`, …), or `forgotten`; why it stays, for what is kept. */
  state?: string;
  why?: string;
}

/** A leftover that goes, and how it goes. */
export interface Removal {
  entry: CleanEntry;
  remove(): void | Promise<void>;
}

/** The plan: what goes, in an order that works (worktrees before their branches), and what stays. */
interface CleanPlan {
  removals: Removal[];
  kept: CleanEntry[];
}

/** What a run's leftovers may do: go (as `state`) or stay (because `why`); its branch too when `branch`. */
type Verdict = { go: true; state: string; branch: boolean } | { go: false; why: string };

/** The verdict for run `run`, whose newest leftover changed at `touchedMs` and of which a worktree is left (`worktree`). */
function verdictOf(fate: RunFate, touchedMs: number, worktree: boolean, retentionMs: number | undefined, nowMs: number): Verdict {
  if (fate.kind === 'open') return { go: false, why: fate.under ? `${fate.state}, and ${fate.under} is still open` : fate.state };
  if (fate.kind === 'ended') return { go: true, state: fate.state, branch: !fate.completed };
  if (retentionMs === undefined) return { go: false, why: 'unknown to this server' };
  const days = Math.round((retentionMs / 86_400_000) * 10) / 10;
  if (nowMs - touchedMs < retentionMs) return { go: false, why: `unknown to this server, and changed within its retention period of ${days} ${days === 1 ? 'day' : 'days'}` };
  // A task removes its worktree before it completes: one that is left never completed.
  return { go: true, state: 'forgotten', branch: worktree };
}

/** Decides what of `scan` goes, asking `fates` about each run. */
export async function planClean(scan: Scan, fates: RunFates, nowMs = Date.now()): Promise<CleanPlan> {
  const removals: Removal[] = [];
  const kept: CleanEntry[] = [];
  const retentionMs = await fates.retentionMs();
  const besides = [...scan.bases, ...scan.sessions];
  const runs = new Set([...scan.worktrees.flatMap((w) => (w.run ? [w.run] : [])), ...besides.map((b) => b.run), ...scan.branches.map((b) => b.run)]);
  const verdicts = new Map<string, Verdict>();
  for (const run of runs) {
    const worktree = scan.worktrees.find((w) => w.run === run);
    const touched = Math.max(worktree?.touchedMs ?? 0, ...besides.filter((b) => b.run === run).map((b) => b.touchedMs));
    verdicts.set(run, verdictOf(await fates.of(run), touched, !!worktree, retentionMs, nowMs));
  }
  const decide = (entry: CleanEntry, verdict: Verdict, remove: Removal['remove']): void => {
    if (verdict.go) removals.push({ entry: { ...entry, state: verdict.state }, remove });
    else kept.push({ ...entry, why: verdict.why });
  };

  const roadmapOpen = scan.worktrees.some((w) => !w.run) && (await fates.roadmapOpen());
  const leaving = new Set<string>();
  for (const w of scan.worktrees) {
    const verdict: Verdict = w.run ? verdicts.get(w.run)! : roadmapOpen ? { go: false, why: 'a roadmap run is still open' } : { go: true, state: 'landing', branch: false };
    if (verdict.go) leaving.add(w.path);
    decide({ kind: 'worktree', path: w.path, run: w.run, repo: w.repo?.path }, verdict, () => removeWorktree(w.path, w.repo?.gitDir));
  }
  for (const b of scan.bases) decide({ kind: 'base', path: b.path, run: b.run }, verdicts.get(b.run)!, () => rmSync(b.path, { force: true }));
  for (const s of scan.sessions) decide({ kind: 'sessions', path: s.path, run: s.run }, verdicts.get(s.run)!, () => rmSync(s.path, { recursive: true, force: true }));
  for (const b of scan.branches) {
    const verdict = verdicts.get(b.run)!;
    if (verdict.go && !verdict.branch) continue; // a result, not a leftover
    decide(branchEntry(b), (verdict.go && checkedOutElsewhere(b, leaving)) || verdict, () => deleteBranch(b.branch, b.repo.gitDir));
  }
  await planDemos(scan.demos, fates, removals, kept);
  return { removals, kept };
}

const branchEntry = (b: FoundBranch): CleanEntry => ({ kind: 'branch', path: b.branch, repo: b.repo.path, run: b.run });

/** A branch checked out anywhere but in a worktree that goes stays: never touch the person's checkout. */
function checkedOutElsewhere(b: FoundBranch, leaving: Set<FoundWorktree['path']>): Verdict | undefined {
  if (!b.checkedOutAt || [...leaving].some((path) => samePath(path, b.checkedOutAt!))) return undefined;
  return { go: false, why: `checked out at ${b.checkedOutAt}` };
}

/** `path` with links resolved (git reports real paths), or as it is when it cannot be. */
const real = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

const samePath = (a: string, b: string): boolean => real(a) === real(b);

/** Demo repositories go once their `dex demo` has ended and no open run works in them. */
async function planDemos(demos: DemoRepo[], fates: RunFates, removals: Removal[], kept: CleanEntry[]): Promise<void> {
  const candidates = demos.filter((d) => !d.demoRunning && !d.gone);
  const names = new Set(candidates.map((d) => d.repo.split('/').pop()!));
  const used = candidates.length ? await fates.openRepoPaths(names) : new Map<string, string>();
  for (const demo of demos) {
    const entry: CleanEntry = { kind: 'demo', path: demo.folder };
    const user = [...used].find(([repo]) => repo === demo.repo || repo.startsWith(`${demo.folder}/`))?.[1];
    if (demo.demoRunning) kept.push({ ...entry, why: 'its dex demo is still running' });
    else if (user) kept.push({ ...entry, why: `${user} is still open on it` });
    else removals.push({ entry: { ...entry, state: demo.gone ? 'gone already' : 'ended' }, remove: () => removeDemoRepo(demo) });
  }
}

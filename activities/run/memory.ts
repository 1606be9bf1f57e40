/**
 * Memory (docs/roadmaps.md#memory): recording a landed task's run memory and the repository's
 * passing verify commands, the memory section of a first prompt, and the `remember` tool. All of
 * it reads and writes only dex's store (and reads git history): never the worktree.
 */
import { phaseArtifactId, workflowKeyPrefix } from '../../core/run/ids';
import { InvalidInput } from '../../core/run/invalid-input';
import { cleanNote, renderProjectMemory } from '../../core/roadmap/project-memory';
import { oneLine, renderRunMemory, type MemoryRef, type RunMemoryEntry } from '../../core/run/run-memory';
import type { DexStore } from '../../store/dex-store';
import type { ActivityDeps } from '../deps';
import { dexGitSync } from '../../host/git/dex-git';
import { repoKeyOf } from '../../host/repo-key';
import { heartbeatingWhileRunning } from './local-heartbeat';
import type { AgentToolOutcome } from '../tools/run-command-tool';

/** Where a transcript's retry context is kept (activities/task/fetch-context.ts), for run memory's failures. */
export const retryContextId = (transcriptId: string): string => `${transcriptId}/retry-context`;

/** Phases whose artifact holds the decisions a later task should know. */
const DECISION_PHASES = ['research', 'spec', 'design'];

/** Characters kept of each decision and each failure. @default 240 */
const PART_CHARS = 240;

/** Input of the `recordTaskMemory` activity: keys and small facts only. */
interface RecordTaskMemoryInput {
  /** The roadmap run (core/run/run-memory.ts MemoryRef.runKey). */
  runKey: string;
  taskId: string;
  title: string;
  /** The task's workflow id: its artifacts and transcripts are found by it. */
  workflowId: string;
  repoPath: string;
  baseSha?: string;
  /** The task branch's last commit (else its branch). */
  head?: string;
  summary?: string;
  /** The verify commands, kept as project memory when `verifyPassed`. */
  verify: string[];
  verifyPassed: boolean;
}

/** Files the task's own commits changed: the branch's first-parent line without merges (a finalize merge brings others' files). */
function touchedFiles(repoPath: string, base: string | undefined, head: string | undefined): string[] {
  if (!base || !head) return [];
  try {
    const out = dexGitSync(repoPath, ['log', '--first-parent', '--no-merges', '--name-only', '--format=', `${base}..${head}`]);
    return [...new Set(out.split('\n').map((l) => l.trim()).filter(Boolean))].sort();
  } catch {
    return []; // the branch is gone: the memory keeps the rest
  }
}

/** The entry of a landed task, from git and the store. */
async function entryOf(store: DexStore, input: RecordTaskMemoryInput): Promise<RunMemoryEntry> {
  const decisions: string[] = [];
  for (const phase of DECISION_PHASES) {
    const text = (await store.getArtifact(phaseArtifactId(input.workflowId, phase)))?.content;
    if (text?.trim()) decisions.push(`(${phase}) ${oneLine(text, PART_CHARS)}`);
  }
  const failures: string[] = [];
  for (const transcript of await store.listTranscripts(workflowKeyPrefix(input.workflowId))) {
    const text = (await store.getArtifact(retryContextId(transcript)))?.content;
    if (text !== undefined) failures.push(oneLine(text, PART_CHARS));
  }
  return {
    taskId: input.taskId,
    title: input.title,
    files: touchedFiles(input.repoPath, input.baseSha, input.head),
    ...(input.summary?.trim() ? { summary: input.summary.trim() } : {}),
    decisions,
    failures: [...new Set(failures)],
  };
}

/** The memory section of a first prompt: project memory, then run memory of the tasks landed before (without `taskId`'s own). */
export async function memorySection(store: DexStore, ref: MemoryRef, repoPath: string, taskId: string): Promise<string> {
  const project = renderProjectMemory(await store.memory.notes(repoKeyOf(repoPath)), ref.projectTokens);
  const run = ref.runKey ? renderRunMemory(await store.memory.runEntries(ref.runKey, taskId), ref.runTokens) : '';
  return project + run;
}

/**
 * The `remember` tool: keeps `{ note }` in the repository's project memory, deduplicated and
 * bounded (core/roadmap/project-memory.ts). Writes only the store; `repoPath` absent, there is no memory.
 */
export async function rememberTool(store: DexStore, repoPath: string | undefined, input: unknown): Promise<AgentToolOutcome> {
  if (!repoPath) return { content: 'remember is not available in this run', isError: true };
  const note = typeof input === 'object' && input !== null ? (input as Record<string, unknown>).note : undefined;
  try {
    const { id, added } = await store.memory.addNote(repoKeyOf(repoPath), 'note', cleanNote(note));
    return { content: added ? `kept as note ${id}` : `already kept as note ${id}`, isError: false };
  } catch (err) {
    if (err instanceof InvalidInput) return { content: `remember needs { note }: ${err.message}`, isError: true };
    throw err;
  }
}

/** The activity that records a landed task's memory. */
export const createMemoryActivities = (deps: ActivityDeps) => heartbeatingWhileRunning({
  /**
   * Keeps the task's run memory under (runKey, taskId) and, when its verify passed, its verify
   * commands as project memory. Keyed writes: a retry stores nothing twice.
   */
  async recordTaskMemory(input: RecordTaskMemoryInput): Promise<{ files: number; stored: boolean }> {
    const entry = await entryOf(deps.store, input);
    const { memory } = deps.store;
    const stored = await memory.putRunEntry(input.runKey, entry);
    if (input.verifyPassed) for (const command of input.verify) await memory.addNote(repoKeyOf(input.repoPath), 'verify', command);
    return { files: entry.files.length, stored };
  },
});

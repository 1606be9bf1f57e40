import { PHASE_INSTRUCTIONS } from '../../core/task/phases';
import { IMPLEMENT_PROMPT, renderPrompt, TOOLS_NOTES } from '../../core/layer/prompt-template';
import type { Agent } from '../../core/task/agent-engine';
import type { ActivityDeps } from '../deps';
import { READ_FILE_LIMIT_BYTES } from '../tools/agent-tools';
import { formatFileList, listFiles } from '../../host/worktree/file-tree';
import { heartbeatingWhileRunning } from '../run/local-heartbeat';
import { memorySection, retryContextId } from '../run/memory';
import type { MemoryRef } from '../../core/run/run-memory';
import { readWorktreeFile } from '../../host/worktree/worktree-files';
import { resolveInWorktree } from '../../host/worktree/worktree-paths';

/** Lines of the file tree shown in the first prompt. @default 500 */
const PROMPT_TREE_LIMIT = 500;

/** Total characters of named files' contents put into the first prompt. @default 32768 */
export const NAMED_FILES_LIMIT_CHARS = 32 * 1024;

/** Input of the `fetchContext` activity. */
export interface FetchContextInput {
  transcriptId: string;
  worktreePath: string;
  taskId: string;
  title: string;
  description: string;
  /** Why an earlier attempt did not land (a rejection reason, a person's note). */
  retryContext?: string;
  verify: string[];
  /** Verify failures the base commit already had: shown as not the task's to fix (docs/roadmaps.md#baseline-aware-verify). */
  preExistingFailures?: string[];
  /** The phase this prompt starts. @default "implement" */
  phase?: string;
  /** Stored artifacts of earlier phases, by the prompt variable that shows them (SPEC_CONTENT, …). */
  artifacts?: Record<string, string>;
  /** Memory to show (docs/roadmaps.md#memory): the repository's, and with `runKey` its roadmap run's. */
  memory?: MemoryRef;
  /** The repository whose project memory is shown. */
  repoPath?: string;
  /** Who works the phase: its prompt names that agent's tools (docs/claude-code.md). @default dex */
  agent?: Agent;
}

/** Output of the `fetchContext` activity: only sizes and names, the prompt stays in the store. */
interface FetchContextResult {
  promptChars: number;
  fileCount: number;
  namedFiles: string[];
}

/** Words of `text` that look like file paths (`src/math.js`, `README.md`), in order, once each. */
export function pathCandidates(text: string): string[] {
  const found = new Set<string>();
  for (const word of text.split(/\s+/)) {
    const bare = word.replace(/^[`'"(\[<]+/, '').replace(/[`'"),.:;!?\]>]+$/, '');
    // Loose on purpose: only words naming an existing file of the worktree are used.
    if (/^[\w./-]+$/.test(bare) && /\w/.test(bare) && /[./]/.test(bare) && !bare.startsWith('/')) found.add(bare);
  }
  return [...found];
}

/** The named files that exist in the worktree, with as much of their text as the budget allows. */
async function readNamedFiles(root: string, candidates: string[]): Promise<{ path: string; text: string }[]> {
  const files: { path: string; text: string }[] = [];
  let budget = NAMED_FILES_LIMIT_CHARS;
  for (const path of candidates) {
    if (budget <= 0) break;
    let bytes: Buffer;
    try {
      // Opened once and checked as opened, as the agent's read_file does: no link, FIFO or device gets in.
      bytes = await readWorktreeFile(root, path, READ_FILE_LIMIT_BYTES);
    } catch {
      continue; // not a file of the worktree: just a word that looked like one
    }
    if (bytes.includes(0)) continue;
    const full = bytes.toString('utf8');
    const text = full.length > budget ? `${full.slice(0, budget)}\n… (cut here; read_file shows the rest)` : full;
    budget -= text.length;
    files.push({ path, text });
  }
  return files;
}

/** A fence longer than any run of backticks in `text`, so the block cannot end early. */
function fenceFor(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(longest + 1);
}

function formatNamedFiles(files: { path: string; text: string }[]): string {
  if (files.length === 0) return '';
  const blocks = files.map(({ path, text }) => {
    const fence = fenceFor(text);
    return `## ${path}\n\n${fence}\n${text.replace(/\n$/, '')}\n${fence}`;
  });
  return `\nFiles the task names:\n\n${blocks.join('\n\n')}\n`;
}

/** The phase's instructions and what earlier phases left (spec, design, review findings). */
async function phaseSection(phase: string, artifacts: Record<string, string>, read: (id: string) => Promise<string | undefined>): Promise<string> {
  const parts = [`\n# Phase: ${phase}\n\n${PHASE_INSTRUCTIONS[phase] ?? `Do the ${phase} step of the task.`}\n`];
  for (const [variable, id] of Object.entries(artifacts)) {
    const text = await read(id);
    if (text) parts.push(`\n## ${variable.replace(/_/g, ' ').toLowerCase()}\n\n${text.trim()}\n`);
  }
  return parts.join('');
}

/** The activity that writes a task's first prompt. */
export const createFetchActivities = (deps: ActivityDeps) => heartbeatingWhileRunning({
  /**
   * Renders the first prompt of a task (its file tree and the files it names) and stores it as
   * the user message at seq 0 of `transcriptId`; a message already stored there is kept.
   */
  async fetchContext(input: FetchContextInput): Promise<FetchContextResult> {
    const root = resolveInWorktree(input.worktreePath, '.');
    const tree = await listFiles(root, root);
    const named = await readNamedFiles(root, pathCandidates(`${input.title}\n${input.description}`));
    const phase = await phaseSection(input.phase ?? 'implement', input.artifacts ?? {}, async (id) => (await deps.store.getArtifact(id))?.content);
    const memory = input.memory && input.repoPath ? await memorySection(deps.store, input.memory, input.repoPath, input.taskId) : '';
    const text = renderPrompt(IMPLEMENT_PROMPT, {
      TASK_ID: input.taskId,
      TASK_TITLE: input.title,
      TASK_DESCRIPTION: input.description.trim() || '(no description beyond the title)',
      PHASE_SECTION: phase,
      FILE_TREE: formatFileList(tree, PROMPT_TREE_LIMIT),
      NAMED_FILES: formatNamedFiles(named),
      RETRY_CONTEXT: input.retryContext?.trim() ? `\n# Earlier attempts\n\n${input.retryContext.trim()}\n` : '',
      MEMORY: memory,
      TOOLS_NOTE: TOOLS_NOTES[input.agent ?? 'dex'],
      VERIFY_COMMANDS: (input.verify.length ? input.verify.map((c) => `  - \`${c}\``).join('\n') : '  (none configured)') + preExistingNote(input.preExistingFailures),
    });
    // Kept apart too: a landed task's run memory lists the failures it was sent back with.
    if (input.retryContext?.trim()) await deps.store.putArtifact(retryContextId(input.transcriptId), 'retry-context', input.retryContext.trim());
    await deps.store.appendMessage(input.transcriptId, 0, 'user', [{ type: 'text', text }]);
    return { promptChars: text.length, fileCount: tree.length, namedFiles: named.map((f) => f.path) };
  },
});

/** What the prompt says of failures the base already had: they are known, and do not block the task. */
function preExistingNote(failures: string[] | undefined): string {
  if (!failures?.length) return '';
  const list = failures.map((f) => `  - ${f}`).join('\n');
  return `\n\nThese checks already failed on the commit you started from. They are not yours to fix unless the task asks for it, and they do not block your completion; new failures do:\n${list}`;
}

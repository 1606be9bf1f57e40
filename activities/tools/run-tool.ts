import { Context } from '@temporalio/activity';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import type { SandboxPolicy } from '../../core/safety/sandbox-policy';
import type { ToolLimits } from '../../core/task/task-types';
import { executeAgentTool } from './agent-tools';
import type { ActivityDeps } from '../deps';
import { rememberTool } from '../run/memory';
import { assertSandboxAvailable } from '../../host/sandbox/sandbox-availability';
import { progressIntervalFor } from '../../host/shell/shell-command';
import { assertWorktreeExists } from '../../host/worktree/worktree-paths';
import { worktreeFingerprint } from '../../host/worktree/worktree-fingerprint';
import { onToolSpan } from '../../tracing/activity-spans';

/** Characters of a tool result that travel back to the workflow. @default 200 */
const TOOL_PREVIEW_CHARS = 200;

/** Input of the `runTool` activity. */
export interface ToolCallInput {
  transcriptId: string;
  /** Sequence number of the assistant message holding the tool_use block. */
  assistantSeq: number;
  toolUseId: string;
  worktreePath: string;
  limits: ToolLimits;
  /** How `run_command` is confined; absent in runs started before sandboxing: the default sandbox. */
  sandbox?: SandboxPolicy;
  /** The repository whose project memory `remember` adds to; absent, `remember` is refused (docs/roadmaps.md#memory). */
  memoryRepo?: string;
}

/** Output of the `runTool` activity; the full result stays in the store. */
export interface ToolCallResult {
  name: string;
  isError: boolean;
  preview: string;
  /** The worktree's state after a tool that may change it (absent after read-only tools). */
  fingerprint?: string;
}

interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

function isToolUse(block: unknown, id: string): block is ToolUseBlock {
  const b = block as Partial<ToolUseBlock> | null;
  return typeof b === 'object' && b !== null && b.type === 'tool_use' && b.id === id;
}

function toResult(stored: { name: string; content: string; isError: boolean }): ToolCallResult {
  onToolSpan(stored.name, stored.isError);
  return { name: stored.name, isError: stored.isError, preview: stored.content.slice(0, TOOL_PREVIEW_CHARS) };
}

/** Tools that only read the worktree and are quick: a reply asking for these alone has them run by its own model call (activities/model/reads-in-turn.ts). */
export const QUICK_READS: ReadonlySet<string> = new Set(['read_file', 'list_files']);

/** Tools that never change the worktree: no fingerprint is taken after them. */
const READ_ONLY_TOOLS = new Set([...QUICK_READS, 'remember']);

/**
 * The worktree's fingerprint after the tools `names` ran, when one of them may have changed it;
 * none after read-only tools, or where it is not a git worktree (unit tests): runaway protection
 * just sees no fingerprint.
 */
export async function fingerprintAfter(names: string[], worktreePath: string): Promise<string | undefined> {
  if (names.every((name) => READ_ONLY_TOOLS.has(name))) return undefined;
  try {
    return await worktreeFingerprint(worktreePath);
  } catch {
    return undefined;
  }
}

async function withFingerprint(result: ToolCallResult, worktreePath: string): Promise<ToolCallResult> {
  const fingerprint = await fingerprintAfter([result.name], worktreePath);
  return fingerprint === undefined ? result : { ...result, fingerprint };
}

/** The tool call `toolUseId` of the assistant message at `assistantSeq`, as the model wrote it. */
async function toolUseOf(store: ActivityDeps['store'], input: ToolCallInput): Promise<ToolUseBlock> {
  const message = await store.getMessage(input.transcriptId, input.assistantSeq);
  const blocks = message?.role === 'assistant' && Array.isArray(message.content) ? message.content : [];
  const use = blocks.find((b) => isToolUse(b, input.toolUseId)) as ToolUseBlock | undefined;
  if (!use) {
    throw nonRetryable(FAILURE.ToolUseNotFound, `no tool_use ${input.toolUseId} in assistant message ${input.assistantSeq} of ${input.transcriptId}`);
  }
  return use;
}

/**
 * Runs the `tool_use` block `toolUseId` of the assistant message at `assistantSeq` and stores its
 * result; a result stored by an earlier attempt is returned without running it again. No fingerprint:
 * the caller takes one after the tools that may change the worktree.
 */
export async function runStoredTool(deps: ActivityDeps, input: ToolCallInput): Promise<ToolCallResult> {
  const { store } = deps;
  const done = await store.getToolResult(input.transcriptId, input.toolUseId);
  if (done) return toResult(done);
  const use = await toolUseOf(store, input);
  if (use.name === 'remember') {
    // Only dex's store changes: no worktree or sandbox is needed.
    const stored = { name: use.name, ...(await rememberTool(store, input.memoryRepo, use.input)) };
    await store.putToolResult(input.transcriptId, input.toolUseId, stored);
    return toResult(stored);
  }
  assertWorktreeExists(input.worktreePath);
  // Only commands run in the sandbox; the file tools read and write through dex's own path checks.
  if (use.name === 'run_command') assertSandboxAvailable(input.sandbox);
  const ctx = Context.current();
  const outcome = await executeAgentTool(use.name, use.input, {
    root: input.worktreePath,
    limits: input.limits,
    sandbox: input.sandbox,
    signal: ctx.cancellationSignal,
    onProgress: (progress) => ctx.heartbeat(progress),
    progressIntervalMs: progressIntervalFor(ctx.info.heartbeatTimeoutMs),
  });
  const stored = { name: use.name, ...outcome };
  await store.putToolResult(input.transcriptId, input.toolUseId, stored);
  return toResult(stored);
}

/** The activity that runs one tool call of an assistant message (runs started before `runTurnTools`; activities/tools/run-turn-tools.ts). */
export const createToolActivities = (deps: ActivityDeps) => ({
  /** {@link runStoredTool}, with the worktree's fingerprint after a tool that may change it. */
  async runTool(input: ToolCallInput): Promise<ToolCallResult> {
    return withFingerprint(await runStoredTool(deps, input), input.worktreePath);
  },
});

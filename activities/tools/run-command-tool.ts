import type { SandboxPolicy } from '../../core/safety/sandbox-policy';
import type { ToolLimits } from '../../core/task/task-types';
import { runAgentCommand } from '../../host/sandbox/run-agent-command';
import { outputTail, type CommandProgress } from '../../host/shell/shell-command';

/** A tool's result as the model sees it. */
export interface AgentToolOutcome {
  content: string;
  isError: boolean;
}

/** Where and how a tool call runs. */
export interface ToolContext {
  /** The task's worktree: the only place the tools reach. */
  root: string;
  limits: ToolLimits;
  /** How `run_command` is confined. @default the default bubblewrap sandbox */
  sandbox?: SandboxPolicy;
  /** Aborting stops the tool; `executeAgentTool` then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called as a command produces output, and now and then while it runs silent (to heartbeat; see `ShellCommandOptions`). */
  onProgress?: (progress: CommandProgress) => void;
  /** How often a silent command reports that it still runs. @default ALIVE_PROGRESS_MS */
  progressIntervalMs?: number;
}

/** `run_command`: the command in the task's sandbox; its exit code and output tail go to the model. */
export async function runCommandTool(command: string, ctx: ToolContext): Promise<AgentToolOutcome> {
  const { limits } = ctx;
  const result = await runAgentCommand(command, ctx.root, ctx.sandbox, {
    timeoutMs: limits.commandTimeoutMs,
    outputLimitBytes: limits.outputLimitBytes,
    signal: ctx.signal,
    onProgress: ctx.onProgress,
    progressIntervalMs: ctx.progressIntervalMs,
  });
  const tail = outputTail(result);
  if (result.timedOut) return { content: `timed out after ${limits.commandTimeoutMs}ms\n${tail}`, isError: true };
  const status = result.exitCode ?? `none (killed by ${result.killedBy})`;
  return { content: `exit code: ${status}\n${tail}`, isError: false };
}

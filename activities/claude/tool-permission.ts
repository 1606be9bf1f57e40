import { isAbsolute, relative } from 'node:path';
import { matchesAnyGlob } from '../../core/task/path-glob';

/** Claude Code's tools that write a file, and the input field that names it. */
const WRITING_TOOLS: Record<string, string> = { Edit: 'file_path', MultiEdit: 'file_path', Write: 'file_path', NotebookEdit: 'notebook_path' };

/** A write the session asked for that a person must allow first. */
export interface ProtectedWrite {
  tool: string;
  /** The path relative to the worktree. */
  path: string;
}

/**
 * Whether a Claude Code tool call writes a protected path that no person allowed yet
 * (docs/claude-code.md#gates-and-budgets): `dex.config.yaml`'s `protectedPaths`, as dex's own
 * checkpoint checks them. Other tools pass: the sandbox confines what they reach, and the
 * checkpoint still stops a protected change made another way (a shell command).
 */
export function protectedWrite(tool: string, input: Record<string, unknown>, worktree: string, protectedPaths: readonly string[], allowed: readonly string[]): ProtectedWrite | undefined {
  const field = WRITING_TOOLS[tool];
  const target = field ? input[field] : undefined;
  if (typeof target !== 'string' || protectedPaths.length === 0) return undefined;
  const path = isAbsolute(target) ? relative(worktree, target) : target;
  if (!matchesAnyGlob(path, protectedPaths) || allowed.includes(path)) return undefined;
  return { tool, path };
}

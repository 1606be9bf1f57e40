import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The Claude Code session id of a phase attempt's transcript: a UUID made from the transcript's
 * key, so every attempt of the activity, on any worker of the host, names the same session
 * (docs/claude-code.md#durable-at-the-message).
 */
export function sessionIdOf(transcriptId: string): string {
  const hex = createHash('sha256').update(`dex-claude-session:${transcriptId}`).digest('hex');
  // A version-4-shaped UUID (the variant and version nibbles set), which Claude Code accepts as a session id.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** What the folder of a worktree's Claude Code sessions is named by: the worktree's path and this (like its `.base` file). */
export const SESSIONS_SUFFIX = '.claude';

/** The folder beside the worktree at `worktreePath` that holds its Claude Code sessions: it goes with the worktree, and `dex clean` finds it. */
export const sessionsDirFor = (worktreePath: string): string => `${resolve(worktreePath)}${SESSIONS_SUFFIX}`;

/**
 * The host folder that holds session `sessionId`'s Claude Code files (settings, the session's JSON
 * Lines), made if missing: beside the task's worktree, outside it, so no commit takes it and a
 * retry on the same host finds it.
 */
export function claudeDirOf(worktreePath: string, sessionId: string): string {
  const dir = join(sessionsDirFor(worktreePath), sessionId);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** True when an earlier attempt left session `sessionId`'s file in `claudeDir`: a retry resumes it instead of starting over. */
export function sessionSaved(claudeDir: string, sessionId: string): boolean {
  const projects = join(claudeDir, 'projects');
  if (!existsSync(projects)) return false;
  return readdirSync(projects).some((project) => existsSync(join(projects, project, `${sessionId}.jsonl`)));
}

import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, relative, sep } from 'node:path';
import { AGENT_TOOL_NAMES, isAgentToolName, type AgentToolName } from '../core/agent-tools';
import type { ToolLimits } from '../core/types';
import { formatFileList, listFiles } from './file-tree';
import { outputTail, runShellCommand } from './shell-command';
import { ToolInputError, resolveInWorktree } from './worktree-paths';

/** The largest file `read_file` returns. @default 262144 */
export const READ_FILE_LIMIT_BYTES = 256 * 1024;

/** The most lines `list_files` returns. @default 2000 */
export const LIST_FILES_LIMIT = 2000;

/** A tool's result as the model sees it. */
export interface AgentToolOutcome {
  content: string;
  isError: boolean;
}

type ToolInput = Record<string, unknown>;

/** The string field `field` of `input`; throws a {@link ToolInputError} naming it when absent or not a string. */
function stringField(tool: string, input: ToolInput, field: string): string {
  const value = input[field];
  if (typeof value !== 'string') {
    const got = value === undefined ? 'it is missing' : `got ${value === null ? 'null' : typeof value}`;
    throw new ToolInputError(`${tool} needs "${field}" as a string; ${got}`);
  }
  return value;
}

/** Rewrites a file-system error so the model sees the path it gave, not a host path. */
function describeFsError(err: unknown, path: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const quoted = JSON.stringify(path);
  switch (code) {
    case 'ENOENT':
      return new ToolInputError(`${quoted} does not exist`);
    case 'EISDIR':
      return new ToolInputError(`${quoted} is a folder, not a file`);
    case 'ENOTDIR':
      return new ToolInputError(`a part of ${quoted} is a file, not a folder`);
    case 'EACCES':
    case 'EPERM':
      return new ToolInputError(`permission denied: ${quoted}`);
    default:
      return err instanceof Error ? err : new Error(String(err));
  }
}

/** Runs `work`, turning file-system errors into messages about `path`. */
async function onPath<T>(path: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ToolInputError) throw err;
    throw describeFsError(err, path);
  }
}

async function readTextFile(root: string, path: string): Promise<string> {
  const abs = resolveInWorktree(root, path);
  return onPath(path, async () => {
    const info = await stat(abs);
    if (info.isDirectory()) throw new ToolInputError(`${JSON.stringify(path)} is a folder; use list_files`);
    if (info.size > READ_FILE_LIMIT_BYTES) {
      throw new ToolInputError(
        `${JSON.stringify(path)} has ${info.size} bytes; read_file reads up to ${READ_FILE_LIMIT_BYTES} ` +
          '(use run_command with head, tail or sed to read a part of it)',
      );
    }
    const bytes = await readFile(abs);
    if (bytes.includes(0)) throw new ToolInputError(`${JSON.stringify(path)} is a binary file`);
    return bytes.toString('utf8');
  });
}

async function writeTextFile(root: string, path: string, content: string): Promise<void> {
  const abs = resolveInWorktree(root, path);
  await onPath(path, async () => {
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, content);
  });
}

/** How often `needle` occurs in `haystack`, counting matches that do not overlap. */
function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count++;
  return count;
}

async function editFile(root: string, input: ToolInput): Promise<string> {
  const path = stringField('edit_file', input, 'path');
  const oldString = stringField('edit_file', input, 'old_string');
  const newString = stringField('edit_file', input, 'new_string');
  if (oldString === '') throw new ToolInputError('edit_file needs a non-empty "old_string"; use write_file to create a file');
  const text = await readTextFile(root, path);
  const count = countOccurrences(text, oldString);
  if (count === 0) throw new ToolInputError(`old_string was not found in ${JSON.stringify(path)}`);
  if (count > 1) {
    throw new ToolInputError(
      `old_string was found ${count} times in ${JSON.stringify(path)}; include more surrounding text so it matches exactly once`,
    );
  }
  const at = text.indexOf(oldString);
  await writeTextFile(root, path, text.slice(0, at) + newString + text.slice(at + oldString.length));
  return 'ok';
}

async function listFolder(root: string, input: ToolInput): Promise<string> {
  const path = input.path === undefined || input.path === null ? '.' : stringField('list_files', input, 'path');
  const abs = resolveInWorktree(root, path);
  return onPath(path, async () => {
    const info = await stat(abs);
    const realRoot = resolveInWorktree(root, '.');
    const paths = info.isDirectory() ? await listFiles(realRoot, abs) : [relative(realRoot, abs).split(sep).join('/')];
    return formatFileList(paths, LIST_FILES_LIMIT);
  });
}

async function runCommand(
  root: string,
  input: ToolInput,
  limits: ToolLimits,
  signal?: AbortSignal,
  onProgress?: () => void,
): Promise<AgentToolOutcome> {
  const command = stringField('run_command', input, 'command');
  const result = await runShellCommand(command, root, {
    timeoutMs: limits.commandTimeoutMs,
    outputLimitBytes: limits.outputLimitBytes,
    signal,
    onProgress,
  });
  const tail = outputTail(result);
  if (result.timedOut) return { content: `timed out after ${limits.commandTimeoutMs}ms\n${tail}`, isError: true };
  const status = result.exitCode ?? `none (killed by ${result.killedBy})`;
  return { content: `exit code: ${status}\n${tail}`, isError: false };
}

async function dispatch(
  name: AgentToolName,
  input: ToolInput,
  root: string,
  limits: ToolLimits,
  signal?: AbortSignal,
  onProgress?: () => void,
): Promise<AgentToolOutcome> {
  const ok = (content: string): AgentToolOutcome => ({ content, isError: false });
  switch (name) {
    case 'read_file':
      return ok(await readTextFile(root, stringField(name, input, 'path')));
    case 'write_file': {
      const path = stringField(name, input, 'path');
      await writeTextFile(root, path, stringField(name, input, 'content'));
      return ok('ok');
    }
    case 'edit_file':
      return ok(await editFile(root, input));
    case 'list_files':
      return ok(await listFolder(root, input));
    case 'run_command':
      return runCommand(root, input, limits, signal, onProgress);
  }
}

/**
 * Runs one of the agent's tools (contract §5) in the worktree at `root`. Tool errors come back
 * as `{ isError: true, content: message }` for the model to read; only an abort through
 * `signal` rejects (with the signal's reason).
 */
export async function executeAgentTool(
  name: string,
  input: unknown,
  root: string,
  limits: ToolLimits,
  signal?: AbortSignal,
  onProgress?: () => void,
): Promise<AgentToolOutcome> {
  if (!isAgentToolName(name)) {
    return { content: `unknown tool "${name}"; the tools are ${AGENT_TOOL_NAMES.join(', ')}`, isError: true };
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { content: `${name} needs its input as a JSON object`, isError: true };
  }
  try {
    return await dispatch(name, input as ToolInput, root, limits, signal, onProgress);
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    return { content: err instanceof Error ? err.message : String(err), isError: true };
  }
}

import { AGENT_TOOL_NAMES, isAgentToolName, type AgentToolName } from '../../core/task/agent-tools';
import { formatFileList, listWorktreeFiles } from '../../host/worktree/file-tree';
import { runCommandTool, type AgentToolOutcome, type ToolContext } from './run-command-tool';
import { readWorktreeFile, updateWorktreeFile, writeWorktreeFile } from '../../host/worktree/worktree-files';
import { ToolInputError } from '../../host/worktree/worktree-paths';

/** The largest file `read_file` returns. @default 262144 */
export const READ_FILE_LIMIT_BYTES = 256 * 1024;

/** The most lines `list_files` returns. @default 2000 */
export const LIST_FILES_LIMIT = 2000;

export type { AgentToolOutcome, ToolContext } from './run-command-tool';

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

/** The text of `bytes` read from `path`; refuses a binary file (one with a NUL byte). */
function asText(bytes: Buffer, path: string): string {
  if (bytes.includes(0)) throw new ToolInputError(`${JSON.stringify(path)} is a binary file`);
  return bytes.toString('utf8');
}

/** The text of the file at `path`, opened and checked by fd (worktree-files.ts). */
async function readTextFile(root: string, path: string): Promise<string> {
  return asText(await readWorktreeFile(root, path, READ_FILE_LIMIT_BYTES), path);
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
  await updateWorktreeFile(root, path, READ_FILE_LIMIT_BYTES, (bytes) => {
    const text = asText(bytes, path);
    const count = countOccurrences(text, oldString);
    if (count === 0) throw new ToolInputError(`old_string was not found in ${JSON.stringify(path)}`);
    if (count > 1) {
      throw new ToolInputError(
        `old_string was found ${count} times in ${JSON.stringify(path)}; include more surrounding text so it matches exactly once`,
      );
    }
    const at = text.indexOf(oldString);
    return text.slice(0, at) + newString + text.slice(at + oldString.length);
  });
  return 'ok';
}

async function listFolder(root: string, input: ToolInput): Promise<string> {
  const path = input.path === undefined || input.path === null ? '.' : stringField('list_files', input, 'path');
  return formatFileList(await listWorktreeFiles(root, path), LIST_FILES_LIMIT);
}

async function dispatch(name: AgentToolName, input: ToolInput, ctx: ToolContext): Promise<AgentToolOutcome> {
  const { root } = ctx;
  const ok = (content: string): AgentToolOutcome => ({ content, isError: false });
  switch (name) {
    case 'read_file':
      return ok(await readTextFile(root, stringField(name, input, 'path')));
    case 'write_file': {
      const path = stringField(name, input, 'path');
      await writeWorktreeFile(root, path, stringField(name, input, 'content'));
      return ok('ok');
    }
    case 'edit_file':
      return ok(await editFile(root, input));
    case 'list_files':
      return ok(await listFolder(root, input));
    case 'run_command':
      return runCommandTool(stringField(name, input, 'command'), ctx);
    case 'remember':
      // Kept in dex's store by the tool activity (activities/run/memory.ts), never here in the worktree.
      return { content: 'remember is not available here', isError: true };
  }
}

/**
 * Runs one of the agent's tools (docs/interfaces.md#the-agent-and-the-model) in the worktree at `root`. Tool errors come back
 * as `{ isError: true, content: message }` for the model to read; only an abort through
 * `ctx.signal` rejects (with the signal's reason).
 */
export async function executeAgentTool(name: string, input: unknown, ctx: ToolContext): Promise<AgentToolOutcome> {
  if (!isAgentToolName(name)) {
    return { content: `unknown tool "${name}"; the tools are ${AGENT_TOOL_NAMES.join(', ')}`, isError: true };
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { content: `${name} needs its input as a JSON object`, isError: true };
  }
  try {
    return await dispatch(name, input as ToolInput, ctx);
  } catch (err) {
    if (ctx.signal?.aborted) throw ctx.signal.reason;
    return { content: err instanceof Error ? err.message : String(err), isError: true };
  }
}

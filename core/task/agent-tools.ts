/**
 * The agent's tools as Anthropic tool definitions (docs/interfaces.md#the-agent-and-the-model: names and required fields
 * are exact). Pure data, shared by the model activity (which offers them) and the tool
 * activity (which runs them).
 */

/** The names of the agent's tools. */
export const AGENT_TOOL_NAMES = ['read_file', 'write_file', 'edit_file', 'list_files', 'run_command', 'remember'] as const;

/** One of the agent's tool names. */
export type AgentToolName = (typeof AGENT_TOOL_NAMES)[number];

/** An Anthropic tool definition. */
interface ToolDefinition {
  name: AgentToolName;
  description: string;
  input_schema: { type: 'object'; properties: Record<string, unknown>; required: string[] };
}

/** The tool definitions offered to the model, in a fixed order so the prompt prefix caches. */
export const AGENT_TOOLS: readonly ToolDefinition[] = [
  {
    name: 'read_file',
    description: 'Read a text file of the worktree. `path` is relative to the worktree root.',
    input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'write_file',
    description: 'Create or overwrite a file of the worktree with `content`. Parent folders are created.',
    input_schema: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
    },
  },
  {
    name: 'edit_file',
    description: 'Replace `old_string`, which must occur exactly once in the file, with `new_string`.',
    input_schema: {
      type: 'object',
      properties: { path: { type: 'string' }, old_string: { type: 'string' }, new_string: { type: 'string' } },
      required: ['path', 'old_string', 'new_string'],
    },
  },
  {
    name: 'list_files',
    description: 'List the files below `path` (default: the worktree root), one path a line.',
    input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: [] },
  },
  {
    name: 'run_command',
    description: 'Run a shell command in the worktree root. Returns the exit code and the tail of its output.',
    input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
  // Last, so the definitions before it keep the prefix they cached with (docs/roadmaps.md#memory).
  {
    name: 'remember',
    description:
      'Keep a short note (at most 500 characters) for later tasks on this repository: a command that works, a convention, a pitfall. It is shown in their first prompt; it changes no file.',
    input_schema: { type: 'object', properties: { note: { type: 'string' } }, required: ['note'] },
  },
];

/** True when `name` is one of the agent's tools. */
export function isAgentToolName(name: string): name is AgentToolName {
  return (AGENT_TOOL_NAMES as readonly string[]).includes(name);
}

/** How long a step summary's argument part may be. @default 80 */
const STEP_ARGUMENT_CHARS = 80;

/** A tool call as one short step: its name and its main argument (`edit_file src/math.js`, `run_command npm test`). */
export function describeToolCall(name: string, input: unknown): string {
  const fields = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const main = fields.command ?? fields.path ?? fields.note ?? '';
  const text = typeof main === 'string' ? main.replace(/\s+/g, ' ').trim() : '';
  const shown = text.length > STEP_ARGUMENT_CHARS ? `${text.slice(0, STEP_ARGUMENT_CHARS - 1)}…` : text;
  return shown ? `${name} ${shown}` : name;
}

/**
 * Prompt templates and their rendering. Pure: shared by activities and, if they need it,
 * workflows.
 */

/**
 * Replaces every `{{NAME}}` in `template` with `vars[NAME]`, or with nothing when `vars` has
 * no such name. One pass: a value that itself holds `{{X}}` is left as it is.
 */
export function renderPrompt(template: string, vars: Record<string, string>): string {
  return template.replace(/\{\{([A-Za-z0-9_]+)\}\}/g, (_, name: string) =>
    Object.prototype.hasOwnProperty.call(vars, name) ? vars[name] : '',
  );
}

/**
 * The first prompt of a phase. Variables: TASK_ID, TASK_TITLE, TASK_DESCRIPTION, PHASE_SECTION
 * (the phase's instructions and the artifacts of earlier phases: spec, design, review findings),
 * FILE_TREE, NAMED_FILES, RETRY_CONTEXT (with verification results), VERIFY_COMMANDS, MEMORY (the
 * repository's project memory and what earlier tasks of the roadmap did, docs/roadmaps.md#memory).
 */
/** How a phase's agent works (TOOLS_NOTE): dex's own five tools and \`remember\`, or a Claude Code session's own tools. */
export const TOOLS_NOTES = {
  dex: `- Use the tools: read_file, write_file, edit_file, list_files and run_command. Paths are relative to the worktree root.
- Read the code you change before you change it, and keep changes to what the task needs.
- Do not commit: dex commits the worktree when the task is done.
- \`remember\` keeps a short note for later tasks on this repository (a command that works, a convention, a pitfall); keep only what is worth knowing next time.`,
  'claude-code': `- Work with your own tools (Read, Edit, Write, Bash, …) in the current folder, the worktree root; nothing outside it is yours to change.
- Read the code you change before you change it, and keep changes to what the task needs.
- Do not commit: dex commits the worktree when the task is done.`,
} as const;

export const IMPLEMENT_PROMPT = `You are working on one task in a git worktree of a software project.

# Task {{TASK_ID}}: {{TASK_TITLE}}

{{TASK_DESCRIPTION}}
{{PHASE_SECTION}}
# The worktree

Files (the worktree root is the current folder of every command and tool):

{{FILE_TREE}}
{{NAMED_FILES}}{{MEMORY}}{{RETRY_CONTEXT}}
# How to work

{{TOOLS_NOTE}}
- Before you finish, run the checks the task will be verified with:
{{VERIFY_COMMANDS}}

# How to finish

End your final message with exactly one completion object, as JSON:

- \`{"status":"complete","summary":"<what you changed and why>"}\` when the task is done and the checks pass;
- \`{"status":"blocked","reason":"<what stops you>"}\` when you cannot finish without help;
- \`{"status":"continue","reason":"<what is left>"}\` when you need another turn.
`;

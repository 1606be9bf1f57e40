/**
 * Which agent works a phase (docs/claude-code.md): dex's own loop (the default: every model turn
 * and tool call a step of the workflow) or a Claude Code session. Pure: the client resolves it
 * from dex.config.yaml and the task workflow reads it.
 */
import type { Weight } from './weight';

/** The agents a phase can run on. */
export const AGENTS = ['dex', 'claude-code'] as const;
export type Agent = (typeof AGENTS)[number];

/** Which of the person's Claude Code set-up a session sees (docs/claude-code.md#the-persons-set-up). */
export interface ClaudeSetup {
  /**
   * Claude Code's setting sources: `project` is the repository's `.claude/settings.json` and
   * `CLAUDE.md`; `user` and `local` add the person's own. @default ['project']
   */
  settingSources: ('user' | 'project' | 'local')[];
  /** The person's own MCP servers (user scope) the session may use, by name; they run in its sandbox. @default none */
  mcpServers?: string[];
}

/** A task's agents by phase (`default` for the others), its weight's over the per-phase ones. */
export function agentsForWeight(agents: Record<string, Agent> | undefined, byWeight: Partial<Record<Weight, Record<string, Agent>>> | undefined, weight: Weight | undefined): Record<string, Agent> | undefined {
  if (!agents && !(weight && byWeight?.[weight])) return undefined;
  return weight && byWeight?.[weight] ? { ...agents, ...byWeight[weight] } : agents;
}

/** The agent of `phase`: its own, else `default`, else dex's. */
export function agentOf(agents: Record<string, Agent> | undefined, phase: string): Agent {
  return agents?.[phase] ?? agents?.default ?? 'dex';
}

/**
 * The `agent` and `claude` keys of dex.config.yaml (docs/claude-code.md#choosing-the-agent): which
 * agent works each phase (dex's own loop or a Claude Code session), per phase and per weight × phase
 * like `models`, and which of the person's Claude Code set-up a session sees.
 */
import type { Weight } from '../../core/task/weight';
import { AGENTS, type Agent, type ClaudeSetup } from '../../core/task/agent-engine';
import { InvalidInput } from '../../core/run/invalid-input';
import { byPhaseAndWeight, isRecord, knownKeys, type Fail } from './config-section';

const SETTING_SOURCES = ['project', 'user', 'local'] as const;

function agentName(v: unknown, key: string, fail: Fail): Agent {
  if (typeof v !== 'string' || !(AGENTS as readonly string[]).includes(v)) fail(key, `must be one of ${AGENTS.join(', ')}`);
  return v as Agent;
}

/**
 * `agent:` — one agent for every phase (`agent: claude-code`), or a map of `default`, phase names
 * and weights (`large: { implement: claude-code }`) to agents.
 */
export function parseAgents(raw: unknown, fail: Fail): { agents: Record<string, Agent>; agentsByWeight: Partial<Record<Weight, Record<string, Agent>>> } {
  if (typeof raw === 'string') return { agents: { default: agentName(raw, 'agent', fail) }, agentsByWeight: {} };
  if (!isRecord(raw)) fail('agent', `must be ${AGENTS.join(' or ')}, or a map of phase (or weight) to agent`);
  const { byPhase, byWeight } = byPhaseAndWeight(raw, 'agent', 'agent', (v, key) => agentName(v, key, fail), fail);
  return { agents: byPhase, agentsByWeight: byWeight };
}

/** `claude:` — `settingSources`, which of the person's Claude Code settings a session reads (@default ['project']), and `mcpServers`, which of their own MCP servers it may use. */
export function parseClaudeSetup(raw: unknown, fail: Fail): ClaudeSetup {
  if (!isRecord(raw)) fail('claude', 'must be a map (settingSources)');
  knownKeys(raw, ['settingSources', 'mcpServers'], 'claude.', fail);
  const sources = raw.settingSources ?? ['project'];
  if (!Array.isArray(sources) || !sources.every((s) => (SETTING_SOURCES as readonly string[]).includes(s as string))) {
    fail('claude.settingSources', `must be a list of ${SETTING_SOURCES.join(', ')}`);
  }
  const servers = raw.mcpServers ?? [];
  if (!Array.isArray(servers) || !servers.every((s) => typeof s === 'string' && s)) fail('claude.mcpServers', 'must be a list of names of your MCP servers');
  return { settingSources: sources as ClaudeSetup['settingSources'], ...(servers.length ? { mcpServers: servers as string[] } : {}) };
}

/**
 * Refuses, before anything starts, a run whose Claude Code phases could not run
 * (docs/claude-code.md#confined): without the sandbox (`--unsafe-no-sandbox`, `sandbox.mode: off`).
 */
export function checkClaudeCodeRun(config: { agents?: Record<string, Agent>; agentsByWeight?: Partial<Record<Weight, Record<string, Agent>>> }, sandboxOff: boolean): void {
  const agents = [...Object.values(config.agents ?? {}), ...Object.values(config.agentsByWeight ?? {}).flatMap((byPhase) => Object.values(byPhase ?? {}))];
  if (!agents.includes('claude-code')) return;
  if (sandboxOff) throw new InvalidInput('agent claude-code runs in the sandbox only: drop --unsafe-no-sandbox (or sandbox.mode: off) for this repository');
}

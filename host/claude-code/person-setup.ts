import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** What of the person's Claude Code folder a session may see with `settingSources: [user]`: instructions and tools of their own, never credentials. */
const SHARED_ENTRIES = ['CLAUDE.md', 'skills', 'agents', 'commands'];

/**
 * Settings that hold or fetch credentials, or run host commands outside the sandbox's reach:
 * dropped from the copy of the person's settings.json (docs/claude-code.md#the-persons-set-up).
 */
const CREDENTIAL_SETTINGS = ['env', 'apiKeyHelper', 'awsCredentialExport', 'awsAuthRefresh', 'otelHeadersHelper', 'forceLoginMethod', 'forceLoginOrgUUID'];

/** The person's Claude Code folder on this host: `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function personClaudeDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAUDE_CONFIG_DIR ?? join(homedir(), '.claude');
}

/**
 * Copies the person's own Claude Code set-up into a session's folder, for `claude.settingSources`
 * with `user` (docs/claude-code.md#the-persons-set-up): their `CLAUDE.md`, skills, agents and
 * commands, and their settings.json without its credentials and credential helpers. A copy, not a
 * mount: what the session changes stays in its folder. Returns what was copied.
 */
export function copyPersonSetup(from: string, to: string): string[] {
  const copied: string[] = [];
  for (const entry of SHARED_ENTRIES) {
    if (!existsSync(join(from, entry))) continue;
    cpSync(join(from, entry), join(to, entry), { recursive: true, dereference: true });
    copied.push(entry);
  }
  const settingsFile = join(from, 'settings.json');
  if (existsSync(settingsFile)) {
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
    for (const key of CREDENTIAL_SETTINGS) delete settings[key];
    writeFileSync(join(to, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
    copied.push('settings.json');
  }
  return copied;
}

/** The person's Claude Code state file (`~/.claude.json`, or `.claude.json` in `$CLAUDE_CONFIG_DIR`), where their own MCP servers are. */
function personStateFile(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAUDE_CONFIG_DIR ? join(env.CLAUDE_CONFIG_DIR, '.claude.json') : join(homedir(), '.claude.json');
}

/**
 * The person's own MCP servers named by `claude.mcpServers` (docs/claude-code.md#the-persons-set-up),
 * from the user scope of their state file, as the Agent SDK's `mcpServers` takes them. They run
 * inside the session's sandbox. Throws, naming it, for a server the person does not have.
 */
export function personMcpServers(names: readonly string[], file = personStateFile()): Record<string, Record<string, unknown>> {
  if (names.length === 0) return {};
  const state = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers?: Record<string, Record<string, unknown>> }) : {};
  const servers: Record<string, Record<string, unknown>> = {};
  for (const name of names) {
    const server = state.mcpServers?.[name];
    if (!server) throw new Error(`claude.mcpServers names "${name}", which is not one of your MCP servers in ${file}`);
    servers[name] = server;
  }
  return servers;
}

import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import type { SpawnedProcess, SpawnOptions } from '@anthropic-ai/claude-agent-sdk' with { 'resolution-mode': 'import' };
import type { SandboxPolicy } from '../../core/safety/sandbox-policy';
import { bwrapArgs } from '../sandbox/bwrap-args';
import { BRIDGE_PATH_INSIDE, PROXY_SOCKET_INSIDE, bridgeScriptPath } from '../sandbox/egress-proxy';
import { PROXY_ENV, sandboxPlacement, withBridge, type ProcessExtras } from '../sandbox/sandboxed-process';
import { bwrapProgram } from '../sandbox/sandbox-availability';
import { SANDBOX_HOME } from '../sandbox/sandbox-env';

/** Where the model relay's socket appears inside the sandbox, and the loopback port the bridge serves it on. */
const RELAY_SOCKET_INSIDE = '/run/dex/model.sock';
const RELAY_PORT = 3129;

/** The key the session holds: a placeholder the relay replaces, so a key read inside is worth nothing (docs/claude-code.md#the-model-key). */
const PLACEHOLDER_KEY = 'dex-placeholder-the-relay-adds-the-key';

/** Claude Code's own folder inside the sandbox: its settings and session files, kept on the host between attempts. */
const CLAUDE_DIR_INSIDE = `${SANDBOX_HOME}/.claude`;

/** What the sandboxed session is given. */
interface ClaudeSandbox {
  worktree: string;
  policy: SandboxPolicy;
  /** The model relay's Unix socket on the host. */
  relaySocket: string;
  /** The egress proxy's Unix socket on the host, when the policy lets the session reach some hosts. */
  proxySocket?: string;
  /** The host folder that holds Claude Code's session files (mounted at {@link CLAUDE_DIR_INSIDE}). */
  claudeDir: string;
  /** The worktree's dependencies: folders first on PATH, their variables, toolchains mounted read-only (host/dependencies/setup-state.ts). */
  setup?: ProcessExtras;
  /** Whatever the session writes to stderr, a line at a time. */
  onStderr?: (text: string) => void;
}

/** Variables of the SDK's environment the Claude Code process needs; nothing else of it passes (it starts from the worker's). */
const SDK_ENV = ['CLAUDE_CODE_ENTRYPOINT', 'CLAUDE_AGENT_SDK_VERSION', 'BUN_ENABLE_CRASH_REPORTING'];

/**
 * The Agent SDK's `spawnClaudeCodeProcess` for a session confined like dex's own commands
 * (docs/claude-code.md#confined): Claude Code and everything it runs live in bubblewrap, with the
 * worktree the only writable host folder beside its own session folder, a private home, no
 * network but the model relay (and the egress proxy for `sandbox.allowHosts`), and an environment
 * built from dex's allowlist, holding a placeholder key. No address-space limit: Claude Code's
 * runtime reserves more address space than it uses; the process-count limit holds.
 */
export function sandboxedClaude(box: ClaudeSandbox): (opts: SpawnOptions) => SpawnedProcess {
  return (opts) => {
    const placed = sandboxPlacement(box.policy, { ...box.setup, readOnlyPaths: [dirname(opts.command), ...(box.setup?.readOnlyPaths ?? [])] });
    const env: Record<string, string> = {
      ...placed.env,
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${RELAY_PORT}`,
      ANTHROPIC_API_KEY: PLACEHOLDER_KEY,
      CLAUDE_CONFIG_DIR: CLAUDE_DIR_INSIDE,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      // Temporal's retry policy is the only one: a failed model call ends the session, and the retried activity resumes it.
      CLAUDE_CODE_MAX_RETRIES: '0',
      NO_PROXY: '127.0.0.1,localhost',
    };
    for (const name of SDK_ENV) if (opts.env[name] !== undefined) env[name] = opts.env[name]!;
    const bridges = [`${RELAY_PORT}=${RELAY_SOCKET_INSIDE}`];
    const extraFiles: [string, string][] = [[box.relaySocket, RELAY_SOCKET_INSIDE], [bridgeScriptPath(), BRIDGE_PATH_INSIDE]];
    if (box.proxySocket) {
      bridges.push(`3128=${PROXY_SOCKET_INSIDE}`);
      extraFiles.push([box.proxySocket, PROXY_SOCKET_INSIDE]);
      Object.assign(env, PROXY_ENV);
    }
    const inner = withBridge(bridges, [opts.command, ...opts.args]);
    const args = bwrapArgs({ worktree: box.worktree, readOnlyPaths: placed.readOnlyPaths, extraFiles, writablePaths: [[box.claudeDir, CLAUDE_DIR_INSIDE]] }, inner);
    const child = spawn(bwrapProgram(), args, { cwd: '/', env, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stderr.setEncoding('utf8').on('data', (text: string) => box.onStderr?.(text));
    opts.signal?.addEventListener('abort', () => child.kill('SIGTERM'), { once: true });
    return child;
  };
}

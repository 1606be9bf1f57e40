import { join } from 'node:path';
import type { SandboxPolicy } from '../../core/safety/sandbox-policy';
import { nodeInstallPrefix } from './bwrap-args';
import { BRIDGE_PATH_INSIDE, PROXY_URL_INSIDE } from './egress-proxy';
import { sandboxEnv } from './sandbox-env';
import { wasmNodeOptions } from './node-wasm-options';

/** What a sandboxed process gets beside its policy: the worktree's dependencies' PATH and environment, and toolchains to read. */
export interface ProcessExtras {
  /** Absolute folders put first on PATH. */
  pathDirs?: string[];
  /** Variables set for the process (never the model's credentials: the caller chooses them). */
  env?: Record<string, string>;
  /** Host folders mounted read-only. */
  readOnlyPaths?: string[];
}

/**
 * The environment and read-only host folders of a process in the sandbox (docs/security.md): dex's
 * allowlist with the worktree's dependencies first on PATH, and the Node.js that runs dex when it
 * lives outside `/usr` (on PATH and mounted), so `npm test` and the proxy bridge find it. Shared by
 * the agent's commands (run-agent-command.ts) and a Claude Code session (host/claude-code/).
 */
export function sandboxPlacement(policy: SandboxPolicy, extras: ProcessExtras = {}): { env: Record<string, string>; readOnlyPaths: string[] } {
  const nodePrefix = nodeInstallPrefix();
  const pathPrefix = [...(extras.pathDirs ?? []), ...(nodePrefix ? [join(nodePrefix, 'bin')] : [])].join(':');
  const base = sandboxEnv(policy.env, { pathPrefix: pathPrefix || undefined }) as Record<string, string>;
  const env = { ...base, ...extras.env };
  Object.assign(env, wasmNodeOptions(env.PATH, env.NODE_OPTIONS));
  const readOnlyPaths = [...(nodePrefix ? [nodePrefix] : []), ...policy.readOnlyPaths, ...(extras.readOnlyPaths ?? [])];
  return { env, readOnlyPaths };
}

/** The variables that send a process's HTTP(S) through the egress proxy, by way of the bridge inside. */
export const PROXY_ENV: Readonly<Record<string, string>> = Object.fromEntries(['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'].map((name) => [name, PROXY_URL_INSIDE]));

/**
 * `argv` run inside the sandbox once the proxy bridge (proxy-bridge.cjs, mounted at
 * BRIDGE_PATH_INSIDE) forwards each `PORT=SOCKET` of `bridges`: the bridge starts in the
 * background, and `argv` is executed once it listens (or after 5 s).
 *
 * The bridge gets none of the command's stdin, stdout or stderr. Those descriptors are shared
 * with the command, and once the bridge carried a connection Node had switched them to
 * non-blocking for every process writing there: uv then met EAGAIN printing into a full pipe
 * and aborted (SIGABRT, with no message, since stderr itself had failed). The bridge prints
 * nothing, so nothing is lost (docs/security.md#1-every-command-the-agent-causes-runs-in-bubblewrap).
 */
export function withBridge(bridges: readonly string[], argv: readonly string[]): string[] {
  const args = bridges.map((_, i) => `"$${i + 1}"`).join(' ');
  const script = `node "$0" ${args} </dev/null >/dev/null 2>&1 & i=0; while [ ! -e /tmp/.dex-proxy-ready ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done; shift ${bridges.length}; exec "$@"`;
  return ['/bin/sh', '-c', script, BRIDGE_PATH_INSIDE, ...bridges, ...argv];
}

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SANDBOX, type SandboxPolicy } from '../../core/safety/sandbox-policy';
import { commandEnv, runProcess, type ShellCommandOptions, type ShellCommandResult } from '../shell/shell-command';
import { bwrapArgs } from './bwrap-args';
import { BRIDGE_PATH_INSIDE, PROXY_SOCKET_INSIDE, bridgeScriptPath, startEgressProxy, type EgressProxy } from './egress-proxy';
import { createPidsCgroup, type PidsCgroup } from './pids-cgroup';
import { assertSandboxAvailable, bwrapProgram } from './sandbox-availability';
import { PROXY_ENV, sandboxPlacement, withBridge, type ProcessExtras } from './sandboxed-process';
import { NO_ONE_AT_THE_TERMINAL } from './sandbox-env';
import { commandSetup } from '../dependencies/setup-state';

/** What a command gets beside its policy: the worktree's dependencies' PATH and environment, and setup's own mounts. */
interface CommandExtras extends ProcessExtras {
  /** Host folders mounted read-write at a path of the sandbox's own: `[hostPath, sandboxPath]` (setup's download caches). */
  writablePaths?: [string, string][];
  /** Host files mounted read-only at a path of the sandbox's own: `[hostPath, sandboxPath]` (setup's CA bundle). */
  readOnlyFiles?: [string, string][];
  /** `host:port` entries of the allowed hosts that may be an address of this host (setup's private registry; never the agent's). */
  localHosts?: string[];
  /** The least processes the command may have, when above the policy's (a JVM build's: docs/real-repositories.md#maven-and-gradle). */
  processes?: number;
}

const MIB = 1024 * 1024;

/** `prlimit` arguments for the per-process limits (address space, file size, open files, no core dumps). */
function rlimitArgs(policy: SandboxPolicy): string[] {
  const { memoryMb, fileSizeMb, processes } = policy.limits;
  return [
    '/usr/bin/prlimit',
    `--as=${memoryMb * MIB}`,
    `--fsize=${fileSizeMb * MIB}`,
    `--nproc=${processes}`,
    '--nofile=4096',
    '--core=0',
    '--',
  ];
}

/** How long to wait, at most, for the sandbox's processes to be gone once bubblewrap exited. */
const SANDBOX_GONE_MS = 2_000;

/**
 * Waits until the sandbox bubblewrap reported on fd 3 is gone. bubblewrap exits as soon as its
 * init reports the command's exit code; the init (and with it every process left in its PID
 * namespace) dies a moment later. Only then is the command over: no process of it is left.
 */
async function sandboxGone(status: string): Promise<void> {
  const pid = /"child-pid"\s*:\s*(\d+)/.exec(status)?.[1];
  if (!pid) return;
  for (const deadline = Date.now() + SANDBOX_GONE_MS; Date.now() < deadline; ) {
    let state: string;
    try {
      state = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
    } catch {
      return; // reaped
    }
    if (state === 'Z' || state === 'X') return; // dead: the namespace's processes went before it
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Runs a command the agent caused (`run_command`, or `verify`, whose commands the agent can
 * edit) in the worktree at `worktree`, confined as `policy` says (docs/security.md). With the
 * sandbox off it runs unconfined but without the model's credentials.
 */
export async function runAgentCommand(
  command: string,
  worktree: string,
  policy: SandboxPolicy | undefined,
  opts: ShellCommandOptions,
  extras: CommandExtras = commandSetup(worktree),
): Promise<ShellCommandResult> {
  const given = policy ?? DEFAULT_SANDBOX;
  const processes = Math.max(given.limits.processes, extras.processes ?? 0);
  const sandbox = processes === given.limits.processes ? given : { ...given, limits: { ...given.limits, processes } };
  const pathDirs = extras.pathDirs ?? [];
  if (sandbox.mode === 'off') {
    const env = { ...NO_ONE_AT_THE_TERMINAL, ...commandEnv(), ...extras.env };
    if (pathDirs.length) env.PATH = [...pathDirs, env.PATH].filter(Boolean).join(':');
    return runProcess({ argv: ['/bin/sh', '-c', command], cwd: worktree, env }, opts);
  }
  assertSandboxAvailable(sandbox);

  const { env, readOnlyPaths } = sandboxPlacement(sandbox, extras);
  let proxy: EgressProxy | undefined;
  let proxyDir: string | undefined;
  let cgroup: PidsCgroup | undefined;
  try {
    const extraFiles: [string, string][] = [...(extras.readOnlyFiles ?? [])];
    let inner = ['/bin/sh', '-c', command];
    if (sandbox.allowHosts.length > 0) {
      proxyDir = mkdtempSync(join(tmpdir(), 'dex-proxy-'));
      proxy = await startEgressProxy(sandbox.allowHosts, join(proxyDir, 'proxy.sock'), { localHosts: extras.localHosts });
      extraFiles.push([proxy.socketPath, PROXY_SOCKET_INSIDE], [bridgeScriptPath(), BRIDGE_PATH_INSIDE]);
      Object.assign(env, PROXY_ENV);
      inner = withBridge([`3128=${PROXY_SOCKET_INSIDE}`], inner);
    }
    cgroup = createPidsCgroup(sandbox.limits.processes);
    const bwrap = [bwrapProgram(), '--json-status-fd', '3', ...bwrapArgs({ worktree, readOnlyPaths, extraFiles, writablePaths: extras.writablePaths }, [...rlimitArgs(sandbox), ...inner])];
    // bubblewrap joins the cgroup before it starts, so everything inside is counted from the first fork.
    const argv = cgroup ? ['/bin/sh', '-c', 'echo $$ > "$0" && exec "$@"', cgroup.procsFile, ...bwrap] : bwrap;
    return await runProcess({ argv, cwd: '/', env, afterExit: sandboxGone }, opts);
  } finally {
    // Whatever failed on the way (the proxy, bubblewrap), nothing of the set-up is left behind.
    cgroup?.remove();
    await proxy?.close();
    if (proxyDir) rmSync(proxyDir, { recursive: true, force: true });
  }
}

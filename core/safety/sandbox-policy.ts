/**
 * How the commands the agent causes (`run_command`, `verify`) are confined. Plain data: the
 * client builds it from `dex.config.yaml` and the command line, the workflow carries it to the
 * activities. See docs/security.md.
 */

/**
 * Environment variables no command the agent causes ever sees: the model's credentials, and the
 * payload keys that would open every run's history (docs/production.md#payload-encryption).
 */
export const HIDDEN_ENV = /^(ANTHROPIC_API_KEY|ANTHROPIC_AUTH_TOKEN|DEX_CODEC_KEYS)$/;

/** `bwrap`: bubblewrap on Linux (the default); `off`: no sandbox, only by the user's explicit choice. */
export type SandboxMode = 'bwrap' | 'off';

/** Resource limits of one sandboxed command. */
export interface SandboxLimits {
  /** Processes and threads the command may have at once (enforced where a pids cgroup can be made). @default 256 */
  processes: number;
  /**
   * Address space of each process, in MiB: reservations, not memory in use. Runtimes reserve far
   * more than they touch (V8's code range, WebAssembly's guard regions): a jest suite's node failed
   * under 4 GiB with "Failed to reserve virtual memory for CodeRange". @default 16384
   */
  memoryMb: number;
  /** Largest file a process may write, in MiB. @default 512 */
  fileSizeMb: number;
}

/** The confinement of a task's commands. */
export interface SandboxPolicy {
  mode: SandboxMode;
  /** Names of worker environment variables passed into the sandbox, beside PATH, LANG, TERM and HOME. */
  env: string[];
  /** Host names (or `*.suffix`) reachable through the egress proxy; none by default. */
  allowHosts: string[];
  /** Host folders mounted read-only (toolchains outside the system folders). */
  readOnlyPaths: string[];
  limits: SandboxLimits;
}

/** Limits when the config sets none. */
const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { processes: 256, memoryMb: 16384, fileSizeMb: 512 };

/** The policy when the config says nothing: bubblewrap, no extra env, no network. */
export const DEFAULT_SANDBOX: SandboxPolicy = {
  mode: 'bwrap',
  env: [],
  allowHosts: [],
  readOnlyPaths: [],
  limits: DEFAULT_SANDBOX_LIMITS,
};

/** Paths whose changes need a person's approval before they are committed, whatever the config adds. */
export const ALWAYS_PROTECTED_PATHS: readonly string[] = ['dex.config.yaml'];

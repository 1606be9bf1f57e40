import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import type { SandboxPolicy } from '../../core/safety/sandbox-policy';
import { findOnPath } from '../find-on-path';
import { bwrapArgs } from './bwrap-args';
import { cachedBwrap, provisionBubblewrap } from './bubblewrap-install';
import { SANDBOX_PATH } from './sandbox-env';

/** Whether this host can confine commands, and if not, what to do about it (`missing`: no bubblewrap at all). */
export type SandboxAvailability = { ok: true } | { ok: false; why: string; missing?: boolean };

/** What a user without a sandbox is told to do. */
const REMEDY = 'or pass --unsafe-no-sandbox (or `sandbox: { mode: off }` in dex.config.yaml) to run the agent unconfined';

let cached: SandboxAvailability | undefined;

/** The bubblewrap program: `DEX_BWRAP` when set (a path), else `bwrap` on the worker's PATH, else the one `dex setup` fetched. */
export function bwrapProgram(): string {
  const named = process.env.DEX_BWRAP;
  if (named) return named;
  return findOnPath('bwrap') ?? (existsSync(cachedBwrap()) ? cachedBwrap() : 'bwrap');
}

/** Tries bubblewrap once, exactly as dex runs commands with it. */
function probe(): SandboxAvailability {
  if (process.platform !== 'linux') {
    return { ok: false, why: `no sandbox on ${process.platform} yet: dex confines commands with bubblewrap on Linux; ${REMEDY}` };
  }
  const run = spawnSync(bwrapProgram(), bwrapArgs({ worktree: tmpdir(), readOnlyPaths: [] }, ['/bin/sh', '-c', 'exit 0']), {
    encoding: 'utf8',
    env: { PATH: SANDBOX_PATH },
    timeout: 10_000,
  });
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    return { ok: false, missing: true, why: `no sandbox: bubblewrap is not installed (install it: apt-get install bubblewrap), ${REMEDY}` };
  }
  if (run.status !== 0) {
    const said = (run.stderr || run.error?.message || `exit ${run.status}`).trim().split('\n')[0];
    return { ok: false, why: `no sandbox: bubblewrap cannot create its namespaces here (${said}); allow user namespaces, ${REMEDY}` };
  }
  return { ok: true };
}

/** Whether bubblewrap works on this host (probed once per process). */
export function sandboxAvailability(): SandboxAvailability {
  cached ??= probe();
  return cached;
}

/**
 * The sandbox, fetched into dex's cache first when bubblewrap is missing (`dex setup`, and the
 * first `dex demo`, `task` or `run` on a machine): progress goes to `log`; when it cannot be had,
 * the answer says why and what to do.
 */
export function ensureSandbox(log: (line: string) => void): SandboxAvailability {
  const found = sandboxAvailability();
  // A bubblewrap the user named (DEX_BWRAP) is theirs to provide.
  if (found.ok || !found.missing || process.platform !== 'linux' || process.env.DEX_BWRAP) return found;
  try {
    provisionBubblewrap(log);
  } catch (err) {
    return { ok: false, missing: true, why: `no sandbox: bubblewrap is not installed and dex could not fetch it (${(err as Error).message}); install it: apt-get install bubblewrap, ${REMEDY}` };
  }
  cached = probe();
  return cached;
}

/**
 * Fails the activity (non-retryable `SandboxUnavailable`) when `policy` asks for a sandbox
 * this host cannot give: a worker never runs the agent's commands unconfined by accident.
 */
export function assertSandboxAvailable(policy: SandboxPolicy | undefined): void {
  if (policy?.mode === 'off') return;
  const availability = sandboxAvailability();
  if (!availability.ok) throw nonRetryable(FAILURE.SandboxUnavailable, availability.why);
}

import type { SandboxPolicy } from '../../core/safety/sandbox-policy';
import { InvalidInput } from '../../core/run/invalid-input';
import { ensureSandbox, type SandboxAvailability } from '../../host/sandbox/sandbox-availability';

/** The sandbox, fetched first when it is missing, saying so on stderr (a `--json` stdout stays one document). */
export const sandboxForRun = (): SandboxAvailability => ensureSandbox((line) => process.stderr.write(`${line}\n`));

/** The line every unconfined run shows, so nobody mistakes it for a confined one. */
export const UNSANDBOXED_WARNING = "UNSANDBOXED: the agent's commands run unconfined on this host (--unsafe-no-sandbox or sandbox.mode: off)";

/**
 * The sandbox a run gets: the config's, turned off only by `--unsafe-no-sandbox`. Fails closed
 * (exit 2, naming what to install) when the config asks for a sandbox this host cannot give.
 */
export function chooseSandbox(
  policy: SandboxPolicy,
  unsafeNoSandbox: boolean | undefined,
  availability: () => SandboxAvailability = sandboxForRun,
): SandboxPolicy {
  if (unsafeNoSandbox) return { ...policy, mode: 'off' };
  if (policy.mode === 'off') return policy;
  const found = availability();
  if (!found.ok) throw new InvalidInput(found.why);
  return policy;
}

import type { SandboxPolicy } from '../../core/safety/sandbox-policy';
import type { SetupConfig } from '../../core/run/setup-types';
import { lastLines, type ShellCommandResult } from '../shell/shell-command';
import type { EcosystemPlan } from './ecosystem-plan';

/** A setup that failed: one line for a person (`message`), and the tail of the failing command's output. */
export class SetupFailed extends Error {
  constructor(
    message: string,
    readonly tail: string,
  ) {
    super(message);
    this.name = 'SetupFailed';
  }
}

/** How much of a failed install's output the task's failure carries. */
const SETUP_TAIL = { lines: 15, chars: 1500 } as const;

/**
 * A certificate problem in the words of the TLS library that met it (OpenSSL's, Node's, rustls'):
 * often on a line of its own below the one that says what failed (docs/real-repositories.md#a-registry-behind-a-ca-of-its-own).
 */
const CERTIFICATE_PROBLEM =
  /certificate verify failed: [^'"()]*[^'"() ]|invalid peer certificate: \w+|unable to (get|verify) [^,;'"()]*certificate|self[- ]signed certificate( in certificate chain)?|certificate has expired/i;

/** The line of an install's output that says what went wrong: an error line with words in it, else the last line; with the certificate problem when one is below it. */
function telling(output: string): string {
  const lines = output.split('\n').map((l) => l.trim()).filter(Boolean);
  const errors = lines.filter((l) => /\berror\b|[a-z]Error:|\bERR_[A-Z]/i.test(l) && !/complete log/i.test(l));
  const certificate = lines.map((l) => CERTIFICATE_PROBLEM.exec(l)?.[0]).find(Boolean);
  const line = (certificate && errors.find((l) => l.includes(certificate))) || (errors.find((l) => l.length > 40) ?? errors[0] ?? lines.at(-1) ?? '');
  if (!certificate || line.includes(certificate)) return line.slice(0, 300);
  return `${line.slice(0, 300 - certificate.length - 3)} (${certificate})`;
}

/** The failure of `plan`'s install: its one line names the command, how it ended, where it could reach, and the line of output that says why. */
export function installFailed(plan: EcosystemPlan, run: ShellCommandResult, config: SetupConfig | undefined, sandbox: SandboxPolicy): SetupFailed {
  const how = run.timedOut ? 'timed out' : run.exitCode === null ? `was killed by ${run.killedBy}` : `exited ${run.exitCode}`;
  const lastLine = telling(run.output);
  const offline =
    config?.network === false
      ? ' with no network allowed (setup.network: false) and nothing cached for these lockfiles'
      : sandbox.mode === 'off'
        ? ''
        : ` (network only to ${[...plan.hosts, ...(config?.allowHosts ?? [])].join(', ') || 'nothing'})`;
  return new SetupFailed(`setup failed: ${plan.ecosystem} \`${plan.command}\` ${how}${offline}${lastLine ? `: ${lastLine}` : ''}`, lastLines(run.output, SETUP_TAIL));
}

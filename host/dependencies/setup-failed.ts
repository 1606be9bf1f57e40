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
 * The line of an install's output that says what went wrong: an uncaught exception's own line
 * (`RangeError: …`, its innermost `[cause]: Error: …`, yarn's `➤ YN0001: │ RequestError: …`), not the runtime's version banner after it;
 * else an error line with words in it, else the last line.
 */
function telling(output: string): string {
  const lines = output.split('\n').map((l) => l.trim()).filter(Boolean);
  const thrown = lines.filter((l) => /(^|\s)(\[cause\]: )?\w*Error: /.test(l)).at(-1);
  const errors = lines.filter((l) => /\berror\b/i.test(l) && !/complete log/i.test(l));
  return (thrown ?? errors.find((l) => l.length > 40) ?? errors[0] ?? lines.at(-1) ?? '').slice(0, 300);
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

import type { SandboxPolicy } from '../../core/safety/sandbox-policy';
import type { SetupConfig } from '../../core/run/setup-types';
import { lastLines, type ShellCommandResult } from '../shell/shell-command';
import type { EcosystemPlan } from './ecosystem-plan';
import { cmakeError } from './native/cmake-error';

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
 * Lines that explain an install's failure whatever else it printed, most telling first: corepack
 * refusing a package manager it cannot verify, pnpm's coded errors (docs/real-repositories.md#what-runs-with-network),
 * a library pkg-config does not have, meson's and autoconf's errors (docs/real-repositories.md#c-and-c).
 */
const CAUSES: RegExp[] = [
  /No compatible signature found|Cannot find matching keyid/i,
  /\bERR_PNPM_\w+/,
  /^(-- )?Package '[^']+'.* not found|^(-- )?No package '[^']+' found/,
  /^\S*meson\.build:\d+:\d+: ERROR: |^configure: error: /,
  // Maven: what it could not get (a dependency, a plugin, a parent POM), an enforcer rule's finding, javac's error (docs/real-repositories.md#maven-and-gradle).
  /^\[ERROR\] .*(could not be resolved|Could not (resolve|transfer|find) |Non-resolvable|Detected (Maven|JDK) Version: |\.java:\[\d+,\d+\] )/,
];
/**
 * A certificate problem in the words of the TLS library that met it (OpenSSL's, Node's, rustls'):
 * often on a line of its own (pip's retry warnings) below the one that says what failed, so it is
 * added to that line (docs/real-repositories.md#a-registry-behind-a-ca-of-its-own).
 */
const CERTIFICATE_PROBLEM =
  /certificate verify failed: [^'"()]*[^'"() ]|invalid peer certificate: \w+|unable to (get|verify) [^,;'"()]*certificate|self[- ]signed certificate( in certificate chain)?|certificate has expired|UnknownIssuer|PKIX path building failed/i;
/** A line that starts as an error: `error: …` (uv, cargo), `ERROR: …` (pip), `Error: …`, `TypeError: …`, `npm error …`, `error[E…]`. */
const ERROR_HEAD = /^(npm (error|ERR!) |error(\[\w+\])?:|ERROR:|fatal:|\w*Error\b( \[\w+\])?:)/i;
/**
 * Lines that never say why: a runtime's version banner (`Node.js v20.20.2`, the last line of a
 * Node crash), npm's pointer to its log and its bare codes, pip's frame around a failed build
 * (`error: subprocess-exited-with-error`, whose cause is inside it), stack frames, a crash's source excerpt,
 * uv's list of what it installed (`+ pytest==9.0.2`).
 */
const NOT_TELLING = /^[+-]( \S+==\S+)?$|^Node\.js v\d|complete log of this run|subprocess-exited-with-error|^note: This error originates|^npm (error|ERR!) (code|errno|syscall)\b|^at\s|^\^+$|^\S+:\d+$|^throw\b|\bthrow new \w*Error\(/i;
/** A line an uncaught exception printed: `RangeError: …`, `[cause]: Error: …`, after a prefix of the tool's. */
const THROWN = /(^|\s)(\[cause\]: )?\w*Error: /;
/** At most this many characters of the line. */
const TELLING_CHARS = 300;

/**
 * The line of an install's output that says what went wrong: a line of a known cause, else the
 * first that starts as an error, else any line with "error" in it, else the last line; never a
 * version banner or a log's pointer.
 */
export function telling(output: string): string {
  const lines = output.replace(/\x1b\[[0-9;]*m/g, '').split('\n').map((l) => l.replace(/\s+/g, ' ').trim()).filter((l) => l && !NOT_TELLING.test(l));
  const certificate = lines.map((l) => CERTIFICATE_PROBLEM.exec(l)?.[0]).find(Boolean);
  const known = CAUSES.map((cause) => lines.find((l) => cause.test(l))).find(Boolean) ?? cmakeError(output);
  // An uncaught exception's own line, its innermost cause last (`[cause]: Error: …`, yarn's `➤ YN0001: │ RequestError: …`).
  const thrown = lines.filter((l) => THROWN.test(l)).at(-1);
  const line =
    known ??
    (certificate && lines.find((l) => l.includes(certificate) && ERROR_HEAD.test(l))) ??
    thrown ??
    lines.find((l) => ERROR_HEAD.test(l)) ??
    lines.find((l) => /\berror\b/i.test(l)) ??
    lines.at(-1) ??
    '';
  // uv says a cause's chain as `cause: …` lines, CMake its findings as `-- …`: the line itself is what matters.
  const bare = line.replace(/^(cause|caused by):\s*|^-- /i, '');
  const shown = bare.length > TELLING_CHARS ? `${bare.slice(0, TELLING_CHARS - 1)}…` : bare;
  if (!certificate || shown.includes(certificate)) return shown;
  return `${shown.slice(0, TELLING_CHARS - certificate.length - 3)} (${certificate})`;
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

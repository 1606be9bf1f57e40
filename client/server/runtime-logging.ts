import { DefaultLogger, Runtime, type LogEntry } from '@temporalio/worker';
import { formatWithOptions } from 'node:util';

let installed = false;

type Level = ConstructorParameters<typeof DefaultLogger>[0] & string;

/**
 * Installs the SDK runtime with a quiet logger and no signal handlers, once, before the first worker or native
 * connection: the SDK's own logs are for operators (DEX_LOG_LEVEL=INFO shows them), and
 * a CLI user sees dex's progress lines instead. The core's logs (its payload-size warnings, a
 * query it could not answer) are forwarded to that logger at the same level: left to the core,
 * they would print on stdout and break `--json` (docs/interfaces.md#the-dex-command).
 */
export function installRuntimeLogging(defaultLevel: 'WARN' | 'ERROR'): void {
  if (installed) return;
  installed = true;
  const level = (process.env.DEX_LOG_LEVEL ?? defaultLevel).toUpperCase() as Level;
  // No shutdown signals of the SDK's own: `dex worker` shuts its workers down on SIGINT and SIGTERM
  // itself, and a command serving its own run cancels that run first (client/run/interrupt.ts), which
  // needs its worker to keep running.
  Runtime.install({
    logger: new DefaultLogger(level, writeLogEntry),
    telemetryOptions: { logging: { forward: {}, filter: { core: level, other: level } } },
    shutdownSignals: [],
  });
}

/**
 * SDK warnings about what dex does on purpose: each of its workers serves one side, workflows on
 * the shared queue and activities on the host's (worker/start-worker.ts), so the other side is
 * never registered.
 */
const BY_DESIGN = [/^No activities registered, not polling/, /^No workflows registered, not polling/];

/**
 * An error as the SDK hands it to the logger. A workflow's comes from its sandbox as a structured
 * clone: a plain `Error` that kept its message, stack and cause, but not its class, name or type.
 */
type LoggedError = { name?: unknown; message?: unknown; stack?: unknown; type?: unknown; cause?: unknown };

/**
 * A failure dex raised on purpose (an ApplicationFailure, e.g. `TaskFailed`, `ModelRateLimited`),
 * alone or as the innermost cause: a run's ordinary outcome, not a bug, so its stack says nothing.
 */
function ordinaryFailure(error: unknown): LoggedError | undefined {
  let e = error as LoggedError | undefined;
  while (e && typeof e === 'object' && e.cause && typeof e.cause === 'object') e = e.cause as LoggedError;
  if (!e || typeof e !== 'object') return undefined;
  return e.name === 'ApplicationFailure' || (typeof e.stack === 'string' && e.stack.startsWith('ApplicationFailure:')) ? e : undefined;
}

/** Which run (and activity) a log entry is about, from the SDK's attributes. */
function whereFrom(meta: Record<string, unknown>): string {
  const run = [meta.workflowType, meta.workflowId].filter(Boolean).join(' ');
  const activity = meta.activityType ? `${meta.activityType}${meta.attempt ? ` attempt ${meta.attempt}` : ''}` : '';
  return [activity, run].filter(Boolean).join(' of ');
}

/**
 * A log entry as `dex worker` writes it, or undefined to leave it out: the SDK's format, but an
 * ordinary failure of a run or an activity in one line (`Workflow failed: taskWorkflow ID:
 * TaskFailed: why`) and the warnings about dex's design left out. Anything else keeps its whole
 * form, stack trace included: that is a bug to read (docs/production.md#the-worker-log).
 */
export function workerLogLine(entry: LogEntry, colors = false): string | undefined {
  if (entry.level === 'WARN' && BY_DESIGN.some((p) => p.test(entry.message))) return undefined;
  const time = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
  const meta = (entry.meta ?? {}) as Record<string, unknown>;
  const failure = ordinaryFailure(meta.error);
  if (failure) {
    const type = typeof failure.type === 'string' && failure.type ? `${failure.type}: ` : '';
    const where = whereFrom(meta);
    return `${time} [${entry.level}] ${entry.message}${where ? `: ${where}` : ''}: ${type}${String(failure.message ?? '')}`.replace(/\n/g, ' ');
  }
  const rest = entry.meta === undefined ? '' : ` ${formatWithOptions({ colors }, entry.meta)}`;
  return `${time} [${entry.level}] ${entry.message}${rest}`;
}

/** Writes a log entry to stderr as {@link workerLogLine} has it. */
function writeLogEntry(entry: LogEntry): void {
  const line = workerLogLine(entry, process.stderr.isTTY);
  if (line !== undefined) process.stderr.write(`${line}\n`);
}

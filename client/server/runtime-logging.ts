import { inspect } from 'node:util';
import { DefaultLogger, Runtime, type LogEntry } from '@temporalio/worker';

let installed = false;

type Level = ConstructorParameters<typeof DefaultLogger>[0] & string;

/** One log line of the SDK or its core, on stderr: stdout holds a command's result alone (one JSON document with `--json`). */
export function logToStderr(entry: LogEntry): void {
  const at = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
  const meta = entry.meta === undefined ? '' : ` ${inspect(entry.meta, { breakLength: Infinity, depth: 4 })}`;
  process.stderr.write(`${at} [${entry.level}] ${entry.message}${meta}\n`);
}

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
    logger: new DefaultLogger(level, logToStderr),
    telemetryOptions: { logging: { forward: {}, filter: { core: level, other: level } } },
    shutdownSignals: [],
  });
}

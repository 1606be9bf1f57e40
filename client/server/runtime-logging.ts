import { DefaultLogger, Runtime } from '@temporalio/worker';

let installed = false;

/**
 * Installs the SDK runtime with a quiet logger and no signal handlers, once, before the first worker or native
 * connection: the SDK's own logs are for operators (DEX_LOG_LEVEL=INFO shows them), and
 * a CLI user sees dex's progress lines instead.
 */
export function installRuntimeLogging(defaultLevel: 'WARN' | 'ERROR'): void {
  if (installed) return;
  installed = true;
  const level = (process.env.DEX_LOG_LEVEL ?? defaultLevel).toUpperCase() as ConstructorParameters<typeof DefaultLogger>[0];
  // No shutdown signals of the SDK's own: `dex worker` shuts its workers down on SIGINT and SIGTERM
  // itself, and a command serving its own run cancels that run first (client/run/interrupt.ts), which
  // needs its worker to keep running.
  Runtime.install({ logger: new DefaultLogger(level), shutdownSignals: [] });
}

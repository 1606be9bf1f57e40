import { DefaultLogger, Runtime } from '@temporalio/worker';
import { makeOutput, type Output } from './cli-context';
import { demoCommand } from './commands/demo';
import { setupCommand, serverCommand, workerCommand } from './commands/host-commands';
import { listCommand, statusCommand, watchCommand } from './commands/inspect';
import { signalCommand } from './commands/signal-commands';
import { taskCommand } from './commands/task';
import { InputError, ServerUnreachable } from './input-error';

const USAGE = `dex — a durable executor for AI-driven work, on Temporal

  dex demo                         run a sample coding task end to end (no key needed)
  dex setup                        install the Temporal CLI and the test server (cached)
  dex server                       the embedded Temporal dev server + Web UI
  dex worker                       a worker for all workflows and this host's activities
  dex task "TITLE" [--description TEXT] [--repo DIR] [--weight W] [--llm SPEC] [--detach]
  dex status ID | dex list | dex watch ID
  dex approve ID [--note TEXT] | dex reject ID --reason TEXT | dex cancel ID
  dex pause ID | dex resume ID

Every command takes --json. --llm: anthropic | anthropic:MODEL | replay:FILE.`;

type Command = (argv: string[], out: Output) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  demo: demoCommand,
  setup: setupCommand,
  server: serverCommand,
  worker: workerCommand,
  task: taskCommand,
  status: statusCommand,
  list: listCommand,
  watch: watchCommand,
  approve: (argv, out) => signalCommand('approve', argv, out),
  reject: (argv, out) => signalCommand('reject', argv, out),
  pause: (argv, out) => signalCommand('pause', argv, out),
  resume: (argv, out) => signalCommand('resume', argv, out),
  cancel: (argv, out) => signalCommand('cancel', argv, out),
};

/** Runs one dex command and returns its exit code (contract §3: 0 done, 1 run failed, 2 bad input, 3 server unreachable). */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const out = makeOutput(rest.includes('--json'));
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE + '\n');
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`dex: unknown command "${name}"\n\n${USAGE}\n`);
    return 2;
  }
  // The SDK's own logs are for operators (DEX_LOG_LEVEL=INFO shows them); a CLI user sees dex's progress lines.
  const level = (process.env.DEX_LOG_LEVEL ?? (name === 'worker' ? 'WARN' : 'ERROR')).toUpperCase();
  Runtime.install({ logger: new DefaultLogger(level as ConstructorParameters<typeof DefaultLogger>[0]) });
  try {
    return await command(rest, out);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const code = err instanceof InputError ? 2 : err instanceof ServerUnreachable ? 3 : 1;
    if (out.json) process.stdout.write(JSON.stringify({ error: message, exitCode: code }) + '\n');
    process.stderr.write(`dex: ${message}\n`);
    return code;
  }
}

/** Runs the command line of this process and exits with the command's code. */
export function runCli(): void {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`dex: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}

import { InvalidInput } from '../core/invalid-input';
import { makeOutput, type Command } from './cli-context';
import type * as DemoCommands from './commands/demo';
import type * as HostCommands from './commands/host-commands';
import type * as InspectCommands from './commands/inspect';
import type * as SignalCommands from './commands/signal-commands';
import type * as LayerCommands from './commands/layer';
import { PLAN_KINDS } from './plan-kinds';
import { ServerUnreachable } from './server-unreachable';

const USAGE = `dex — a durable executor for AI-driven work, on Temporal

  dex demo                         run a sample coding task end to end (no key needed)
  dex setup                        install the Temporal CLI and the test server (cached)
  dex server                       the embedded Temporal dev server + Web UI
  dex worker                       a worker for all workflows and this host's activities
  dex run ROADMAP.md [--repo DIR] [--llm SPEC] [--detach]
  dex task "TITLE" [--description TEXT] [--repo DIR] [--weight W] [--llm SPEC] [--detach]
  dex sheet FILE.sheet.yaml [--plan] [--confirm] [--llm SPEC] [--detach]
  dex layer FILE.layer.yaml [--llm SPEC] [--detach] | dex messages import FILE.jsonl | dex insights list [--topic KEY]
  dex status ID | dex list | dex watch ID
  dex approve ID [--note TEXT] | dex reject ID --reason TEXT | dex cancel ID
  dex pause ID | dex resume ID

Every command takes --json. --llm: anthropic | anthropic:MODEL | replay:FILE.`;

// Commands load on demand (require, as this CommonJS code runs under tsx's CommonJS hook):
// a mistyped option answers at once, without loading the Temporal SDK.
const COMMANDS: Record<string, () => Promise<Command>> = {
  ...Object.fromEntries(Object.values(PLAN_KINDS).map((kind) => [kind.command, kind.loadCommand])),
  demo: async () => (require('./commands/demo') as typeof DemoCommands).demoCommand,
  setup: async () => (require('./commands/host-commands') as typeof HostCommands).setupCommand,
  server: async () => (require('./commands/host-commands') as typeof HostCommands).serverCommand,
  worker: async () => (require('./commands/host-commands') as typeof HostCommands).workerCommand,
  messages: async () => (require('./commands/layer') as typeof LayerCommands).messagesCommand,
  insights: async () => (require('./commands/layer') as typeof LayerCommands).insightsCommand,
  status: async () => (require('./commands/inspect') as typeof InspectCommands).statusCommand,
  list: async () => (require('./commands/inspect') as typeof InspectCommands).listCommand,
  watch: async () => (require('./commands/inspect') as typeof InspectCommands).watchCommand,
  ...Object.fromEntries(
    (['approve', 'reject', 'pause', 'resume', 'cancel'] as const).map((name) => [
      name,
      async (): Promise<Command> => {
        const { signalCommand } = require('./commands/signal-commands') as typeof SignalCommands;
        return (argv, out) => signalCommand(name, argv, out);
      },
    ]),
  ),
};

/** Runs one dex command and returns its exit code (docs/interfaces.md#the-dex-command: 0 done, 1 run failed, 2 bad input, 3 server unreachable). */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const out = makeOutput(argv.includes('--json'));
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  try {
    const load = name ? COMMANDS[name] : undefined;
    if (!load) throw new InvalidInput(name ? `unknown command "${name}"\n\n${USAGE}` : USAGE);
    return await (await load())(rest, out);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // The one place errors become exit codes: every input error (core's parsers included) is an InvalidInput.
    const code = err instanceof InvalidInput ? 2 : err instanceof ServerUnreachable ? 3 : 1;
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

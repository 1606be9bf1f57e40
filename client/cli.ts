import { InvalidInput } from '../core/run/invalid-input';
import { makeOutput, UsageError, type Command, type Output } from './cli-context';
import { COMMAND_HELP, helpFor, optionLines, renderCommandHelp, renderOverview, usageOf, type HelpTopic } from './command-help';
import type * as CleanCommands from './clean/clean-command';
import type * as CodecServerCommands from './commands/codec-server';
import type * as DemoCommands from './demo/demo-command';
import type * as HostCommands from './commands/host-commands';
import type * as DiffCommands from './commands/diff';
import type * as RetryCommands from './commands/retry';
import type * as ReplayTestCommands from './commands/replay-test';
import type * as InspectCommands from './commands/inspect';
import type * as ListCommands from './commands/list';
import type * as LogCommands from './commands/log';
import type * as SetupNamespaceCommands from './commands/setup-namespace';
import type * as SignalCommands from './commands/signal-commands';
import type * as LayerCommands from './commands/layer';
import type * as MemoryCommands from './commands/memory';
import type * as RunCommands from './commands/run';
import type * as SheetCommands from './commands/sheet';
import type * as TaskCommands from './commands/task';
import type * as WebhookCommands from './webhook/webhook-command';
import type * as WorkersCommands from './fleet/workers-command';
import { PLAN_KINDS } from './plan-kinds';
import { ServerUnreachable } from '../core/run/server-unreachable';
import { readSettings } from './settings';
import { flushTracing } from '../tracing/tracing';

// Commands load on demand (require, as this CommonJS code runs under tsx's CommonJS hook):
// a mistyped option answers at once, without loading the Temporal SDK.
const COMMANDS: Record<string, () => Promise<Command>> = {
  [PLAN_KINDS.task.command]: async () => (require('./commands/task') as typeof TaskCommands).taskCommand,
  [PLAN_KINDS.roadmap.command]: async () => (require('./commands/run') as typeof RunCommands).runCommand,
  [PLAN_KINDS.layer.command]: async () => (require('./commands/layer') as typeof LayerCommands).layerCommand,
  [PLAN_KINDS.sheet.command]: async () => (require('./commands/sheet') as typeof SheetCommands).sheetCommand,
  demo: async () => (require('./demo/demo-command') as typeof DemoCommands).demoCommand,
  setup: async () => (require('./commands/host-commands') as typeof HostCommands).setupCommand,
  'setup-namespace': async () => (require('./commands/setup-namespace') as typeof SetupNamespaceCommands).setupNamespaceCommand,
  server: async () => (require('./commands/host-commands') as typeof HostCommands).serverCommand,
  worker: async () => (require('./commands/host-commands') as typeof HostCommands).workerCommand,
  workers: async () => (require('./fleet/workers-command') as typeof WorkersCommands).workersCommand,
  webhook: async () => (require('./webhook/webhook-command') as typeof WebhookCommands).webhookCommand,
  'codec-server': async () => (require('./commands/codec-server') as typeof CodecServerCommands).codecServerCommand,
  messages: async () => (require('./commands/layer') as typeof LayerCommands).messagesCommand,
  insights: async () => (require('./commands/layer') as typeof LayerCommands).insightsCommand,
  memory: async () => (require('./commands/memory') as typeof MemoryCommands).memoryCommand,
  status: async () => (require('./commands/inspect') as typeof InspectCommands).statusCommand,
  list: async () => (require('./commands/list') as typeof ListCommands).listCommand,
  watch: async () => (require('./commands/inspect') as typeof InspectCommands).watchCommand,
  log: async () => (require('./commands/log') as typeof LogCommands).logCommand,
  diff: async () => (require('./commands/diff') as typeof DiffCommands).diffCommand,
  retry: async () => (require('./commands/retry') as typeof RetryCommands).retryCommand,
  'replay-test': async () => (require('./commands/replay-test') as typeof ReplayTestCommands).replayTestCommand,
  clean: async () => (require('./clean/clean-command') as typeof CleanCommands).cleanCommand,
  choose: async () => (require('./commands/signal-commands') as typeof SignalCommands).chooseCommand,
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

/** The names of every command `main` runs (each has an entry in client/command-help.ts). */
export const commandNames = (): string[] => [...Object.keys(COMMANDS), 'help'];

/**
 * What help a command line asks for: `dex`, `dex help [CMD]`, `dex --help`, or `dex CMD --help` /
 * `-h` (before a `--`); `null` asks for the overview, undefined for no help at all.
 */
function helpAsked(name: string | undefined, rest: string[]): string | null | undefined {
  const args = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  // `dex` alone asks what there is: the overview, as `dex help` gives it.
  if (name === undefined) return null;
  if (name === 'help' || name === '--help' || name === '-h') {
    const topics = args.filter((a) => !a.startsWith('-'));
    if (topics.length > 1) throw new UsageError(`one command at a time: ${usageOf('help')}`);
    if (name === 'help' && !topics.length && (args.includes('--help') || args.includes('-h'))) return 'help';
    return topics[0] ?? null;
  }
  return name && (args.includes('--help') || args.includes('-h')) ? name : undefined;
}

/** Prints the overview or one command's help (with --json, as one document). */
function showHelp(topic: string | null, out: Output): number {
  if (topic === null) {
    const commands = (Object.keys(COMMAND_HELP) as HelpTopic[]).map((c) => ({ command: c, usage: usageOf(c), about: COMMAND_HELP[c].about }));
    out.result(renderOverview(), { commands });
    return 0;
  }
  const { about } = helpFor(topic);
  const name = topic as HelpTopic;
  out.result(renderCommandHelp(name), { command: name, usage: usageOf(name), about, options: optionLines(name) });
  return 0;
}

/** Runs one dex command and returns its exit code (docs/interfaces.md#the-dex-command: 0 done, 1 run failed, 2 bad input, 3 server unreachable). */
async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const out = makeOutput(argv.includes('--json'));
  try {
    const help = helpAsked(name, rest);
    if (help !== undefined) return showHelp(help, out);
    const load = name ? COMMANDS[name] : undefined;
    if (!load) throw new InvalidInput(`unknown command "${name}": dex knows ${commandNames().join(', ')} (\`dex help\` says what each does)`);
    // A DEX_STORE dex cannot read is bad input to every command, caught before any of them starts anything.
    readSettings();
    return await (await load())(rest, out);
  } catch (err) {
    const usage = err instanceof UsageError && name && Object.hasOwn(COMMAND_HELP, name) ? ` (see \`dex help ${name}\`)` : '';
    const message = (err instanceof Error ? err.message : String(err)) + usage;
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
    // Spans still buffered would die with the process (docs/production.md#traces).
    async (code) => {
      await flushTracing();
      process.exit(code);
    },
    (err) => {
      process.stderr.write(`dex: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}

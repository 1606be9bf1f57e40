import { parseArgs, type ParseArgsConfig } from 'node:util';
import { InvalidInput } from '../core/run/invalid-input';
import { COMMAND_HELP, usageOf, type HelpTopic } from './command-help';

/** How a command talks to the person: progress on stderr, the result on stdout (one JSON document with --json). */
export interface Output {
  json: boolean;
  /** A progress or status line on stderr (silent with --json). */
  info(line: string): void;
  /** The command's result: `human` as text, or `data` as one JSON document with --json. */
  result(human: string, data: unknown): void;
}

/** One `dex` command: runs with the arguments after its name and returns the exit code. */
export type Command = (argv: string[], out: Output) => Promise<number>;

/** Makes the output for one command. */
export function makeOutput(json: boolean): Output {
  return {
    json,
    info: (line) => {
      if (!json) process.stderr.write(line + '\n');
    },
    result: (human, data) => {
      process.stdout.write(json ? JSON.stringify(data, null, 2) + '\n' : human + '\n');
    },
  };
}

/** A command line the command cannot read (an unknown option, a missing argument): exit 2, and the CLI points to the command's help. */
export class UsageError extends InvalidInput {
  override name = 'UsageError';
}

/**
 * `argv` with a negative number after a string option joined to it (`--max-tasks -1` as
 * `--max-tasks=-1`): the parser would take `-1` for an option, and the command could not say what
 * is wrong with the value.
 */
function negativeValuesJoined(argv: string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const takesValue = (arg: string) => arg.startsWith('--') && options[arg.slice(2)]?.type === 'string';
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (takesValue(argv[i]) && /^-\d/.test(argv[i + 1] ?? '')) out.push(`${argv[i]}=${argv[++i]}`);
    else out.push(argv[i]);
  }
  return out;
}

/**
 * Parses a command's arguments; unknown options and missing values are usage errors (exit 2).
 * `options` may be a command's entry in client/command-help.ts: the parser reads each option's
 * `type` and ignores its help.
 */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T) {
  try {
    const args = negativeValuesJoined(argv, options);
    return parseArgs({ args, options: { ...options, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  } catch (err) {
    // An input error is one line (docs/interfaces.md#files); the parser words some on several.
    throw new UsageError((err as Error).message.split('\n').join(' '));
  }
}

/** The option values of command `K` as parsed from its help entry's options. */
type OptionValues<K extends HelpTopic> = ReturnType<typeof parseCommandArgs<(typeof COMMAND_HELP)[K]['options']>>['values'];

/**
 * The options of `command`, which takes no other arguments: a stray word (`dex server stop`) is a
 * usage error, not ignored, since the command would go on to do something the person did not ask for.
 */
export function parseOptionsOnly<K extends HelpTopic>(argv: string[], command: K): OptionValues<K> {
  const { values, positionals } = parseCommandArgs<(typeof COMMAND_HELP)[K]['options']>(argv, COMMAND_HELP[command].options);
  if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}": ${usageOf(command)}`);
  return values;
}

/** The one positional argument a command needs, or a usage error naming it. */
export function onePositional(positionals: string[], name: string, usage: string): string {
  if (positionals.length !== 1) throw new UsageError(`expected ${name}: ${usage}`);
  return positionals[0];
}

/**
 * Every `dex` command's usage, in one table: what `dex help CMD` and `dex CMD --help` print, the
 * usage an input error quotes, and (for the commands that read their options from here) the
 * options the parser accepts, so the help cannot list an option the command refuses or miss one
 * it takes (docs/interfaces.md#the-dex-command).
 */
import { InvalidInput } from '../core/run/invalid-input';
import { WEBHOOK_HELP } from './webhook/webhook-help';
import { GATE_HELP } from './gate-help';

/** One option of a command: how the parser reads it and how the help shows it. */
interface OptionHelp {
  type: 'string' | 'boolean';
  /** What a string option's value stands for, e.g. `DIR`. */
  value?: string;
  /** The command refuses to run without it (shown without brackets). */
  required?: boolean;
  /** One line: what it does, with its default. */
  help: string;
}

/** One command's help. */
interface CommandHelp {
  /** The command and its positional arguments, e.g. `dex task "TITLE"`. */
  synopsis: string;
  /** One or two sentences: what it does. */
  about: string;
  /** Its options, besides `--json`, which every command takes. */
  options: Record<string, OptionHelp>;
}

const LLM = {
  type: 'string',
  value: 'SPEC',
  help: 'where model answers come from: anthropic | anthropic:MODEL | replay:FILE | record:FILE (live, each answer appended to FILE) (default: anthropic when ANTHROPIC_API_KEY is set)',
} as const satisfies OptionHelp;
const DETACH = { type: 'boolean', help: 'start the run and return at once: no worker of its own, no progress' } as const satisfies OptionHelp;
const UNSAFE_NO_SANDBOX = { type: 'boolean', help: "run the agent's commands unconfined when no sandbox can be had (every progress line says so)" } as const satisfies OptionHelp;
const RUN_ID = 'a run id as `dex list` shows it';
// `satisfies`, not a type: each command's options keep their literal types, so the values a
// command parses with them are typed (a boolean option's value is a boolean).
/** Every command's help, in the order `dex help` lists them. */
export const COMMAND_HELP = {
  demo: {
    synopsis: 'dex demo',
    about: 'Makes a sample repository with a failing test and fixes it through a real taskWorkflow, from a bundled cassette (no key needed).',
    options: { dir: { type: 'string', value: 'DIR', help: 'where to make the sample repository (default: a new temporary folder)' } },
  },
  setup: {
    synopsis: 'dex setup',
    about: 'Installs the Temporal CLI and the Java test server into the cache (once), and says whether a sandbox works on this host.',
    options: { quiet: { type: 'boolean', help: 'print only warnings' } },
  },
  'setup-namespace': {
    synopsis: 'dex setup-namespace',
    about: "Registers dex's search attributes (DexKind, DexState, DexRepo, DexPhase, DexWaitingFor, DexCostUsd) on a namespace of any Temporal server; the embedded dev server gets them at start.",
    options: { namespace: { type: 'string', value: 'NS', help: 'the namespace (default: TEMPORAL_NAMESPACE, else default)' } },
  },
  server: {
    synopsis: 'dex server [stop]',
    about:
      'Runs the embedded Temporal dev server and its Web UI in the foreground, its data in $DEX_HOME/temporal.db, with a workflow host that keeps every run legible; `dex server stop` stops every background workflow host of the embedded server, then the server (runs wait in its database).',
    options: {},
  },
  'codec-server': {
    synopsis: 'dex codec-server',
    about: "Decodes (and encodes) payloads sealed with DEX_CODEC_KEYS for the stock Temporal CLI (--codec-endpoint) and the Web UI, on 127.0.0.1, until SIGINT or SIGTERM (docs/production.md#payload-encryption).",
    options: {
      port: { type: 'string', value: 'N', help: 'the port to listen on, 0 for a free one (default: 8888)' },
      origin: { type: 'string', value: 'URL', help: 'the Web UI origins allowed to call it, comma-separated (default: http://127.0.0.1:8233)' },
    },
  },
  webhook: WEBHOOK_HELP,
  worker: {
    synopsis: 'dex worker',
    about:
      "Runs a worker for every workflow, this host's activities and the foreground runs of whoever has this worker's key (and, on a shared DEX_STORE, that store's layer activities) until SIGINT or SIGTERM (docs/architecture.md#who-serves-a-run).",
    options: {
      'workflows-only': { type: 'boolean', help: 'serve workflow tasks and queries only, with no model key and no activities: keeps every run legible' },
      tasks: { type: 'string', value: 'K', help: 'fleet tasks (on a forge repository) this worker holds at once (default: 2; docs/fleet.md#running-a-fleet)' },
      drain: { type: 'boolean', help: "ask this DEX_HOME's running worker to take no new task and exit once its tasks are done; waits for it" },
    },
  },
  workers: { synopsis: 'dex workers', about: "The fleet's workers (those polling for task slots, docs/fleet.md#seeing-the-fleet), and the running tasks each holds.", options: {} },
  task: {
    synopsis: 'dex task "TITLE"',
    about: 'One coding task on a repository, on its own branch and worktree; checked before anything starts. Without --detach it shows progress on stderr and prints the result.',
    options: {
      description: { type: 'string', value: 'TEXT', help: 'what the task is about, beyond its title' },
      repo: { type: 'string', value: 'DIR', help: 'the git repository (default: the current folder), or a forge repository (https://github.com/OWNER/NAME or OWNER/NAME), run on the fleet (docs/fleet.md)' },
      weight: { type: 'string', value: 'W', help: 'trivial | small | medium | large: the phases to run (default: implement only)' },
      attempts: { type: 'string', value: 'N', help: "best of N: N attempts at once, each on its own branch, the best by evidence lands (2 to 8; 1: off; default: the config's attempts:, docs/attempts.md)" },
      llm: LLM,
      detach: DETACH,
      'unsafe-no-sandbox': UNSAFE_NO_SANDBOX,
    },
  },
  run: {
    synopsis: 'dex run ROADMAP.md',
    about: 'Every open task of a roadmap, in dependency order, each landed on the checked-out branch (docs/roadmaps.md).',
    options: {
      repo: { type: 'string', value: 'DIR|URL|OWNER/NAME', help: "the git repository (default: the roadmap's folder); on a forge, the roadmap is a path in it, its tasks run on the fleet and land through PRs (docs/fleet.md)" },
      llm: LLM,
      'max-tasks': {
        type: 'string',
        value: 'N',
        help: 'land at most N tasks (a whole number, 1 or more): no new task starts once N have landed or are under way; the run ends completed, listing the tasks it did not start, and a later `dex run` of the roadmap takes them up (default: every open task)',
      },
      detach: DETACH,
      'unsafe-no-sandbox': UNSAFE_NO_SANDBOX,
    },
  },
  layer: {
    synopsis: 'dex layer FILE.layer.yaml',
    about: 'A layer run: its nodes once for each target, fail-forward (docs/layers.md). With --resume, a new run of only the failed targets of RUN, each from the node it failed at.',
    options: {
      resume: {
        type: 'string',
        value: 'RUN',
        help: "instead of a file: a new run of RUN's failed targets only, each from the node it failed at, reusing what the nodes before it fetched (exit 0 when none failed)",
      },
      llm: LLM,
      detach: DETACH,
    },
  },
  sheet: {
    synopsis: 'dex sheet FILE.sheet.yaml',
    about: 'A sheet of statements, run in dependency phases (docs/sheets.md).',
    options: {
      plan: { type: 'boolean', help: 'print the plan (phases and order) and start nothing' },
      confirm: { type: 'boolean', help: 'wait at the plan gate for `dex approve` before running anything' },
      llm: LLM,
      detach: DETACH,
    },
  },
  messages: {
    synopsis: 'dex messages import FILE.jsonl',
    about: "Imports topic messages (JSON Lines) into this host's store for layers to read (no Temporal needed).",
    options: {},
  },
  insights: {
    synopsis: 'dex insights list',
    about: "Lists the insights layers stored on this host, newest first.",
    options: {
      topic: { type: 'string', value: 'KEY', help: 'only this topic' },
      run: { type: 'string', value: 'ID', help: 'only this layer run' },
    },
  },
  memory: {
    synopsis: 'dex memory',
    about: "What dex remembers about a repository on this host (verify commands that passed, notes kept by the model's `remember` or by you), shown in every task's first prompt; lists it, or adds or forgets a note (no Temporal needed).",
    options: {
      repo: { type: 'string', value: 'DIR', help: 'the repository (default: the current folder)' },
      add: { type: 'string', value: 'TEXT', help: 'keep this note (at most 500 characters; a note kept already is not kept twice)' },
      forget: { type: 'string', value: 'N', help: 'forget note N, as the list numbers it' },
    },
  },
  list: {
    synopsis: 'dex list',
    about: "dex's runs, newest first, with their state, kind, title, cost and the gate they wait at; runs waiting for you come first, each with the command that answers it.",
    options: {
      state: { type: 'string', value: 'S', help: 'only runs in this state: running | waiting | paused | completed | failed | rejected | cancelled | budget_exceeded | rolled_back' },
      kind: { type: 'string', value: 'K', help: 'only runs of this kind: task | roadmap | layer | sheet' },
      repo: { type: 'string', value: 'R', help: "only runs on this repository (its folder name; a path's last part)" },
      limit: { type: 'string', value: 'N', help: 'at most N runs (default: 50)' },
    },
  },
  status: {
    synopsis: 'dex status ID',
    about: `A run's state, title, time, where it is, what it spent and its Web UI page; while it waits, the dex and temporal commands that answer it; for a failed task, why: the error, what made verify fail, the tail of its output and the kept worktree. ID is ${RUN_ID}.`,
    options: {},
  },
  watch: {
    synopsis: 'dex watch ID',
    about: "A run's live progress on stderr until it ends; exits as the run ended (0 completed, 1 otherwise).",
    options: {},
  },
  log: {
    synopsis: 'dex log ID',
    about: "A run's steps from this host's store: each model turn, the tools it called with their arguments and a preview of each result, each verify and what made it fail; a roadmap's tasks in order; then the decisions people took at its gates.",
    options: { follow: { type: 'boolean', help: 'keep printing new steps until the run ends' } },
  },
  diff: {
    synopsis: 'dex diff ID [ATTEMPT]',
    about:
      "What a task changed against the commit its branch started from; for a running or failed task, the worktree's uncommitted changes too (when the worktree is on this host). A roadmap: each task's. With ATTEMPT (a letter), that attempt's branch of a best-of-N task (docs/attempts.md).",
    options: {},
  },
  retry: {
    synopsis: 'dex retry ID',
    about: 'A new run of an ended task (ID-retry-N) from the checkpoint before PHASE: the earlier phases are not run again, their artifacts are reused.',
    options: {
      from: { type: 'string', value: 'PHASE', required: true, help: 'the phase to start at (one of the task\'s phases)' },
      note: { type: 'string', value: 'TEXT', help: 'a note for the model, given with the phase' },
      detach: DETACH,
    },
  },
  'replay-test': {
    synopsis: 'dex replay-test FILE',
    about:
      'Replays a run recorded with --llm record:FILE on a fresh copy of the repository at the commit it started from, on the time-skipping test server (gate deadlines, timers and backoffs pass at once; it reports the simulated time beside the wall time); exit 0 when it ends the same (state and the tree of each task\'s commit; a layer\'s target statuses, insights and prompts; a sheet\'s statements) or as --script expects, 1 naming what differs.',
    options: {
      repo: { type: 'string', value: 'DIR', help: 'the repository to copy (default: the one the recording was made on)' },
      script: { type: 'string', value: 'FILE', help: 'a people script (YAML): who answers which gate, and what the run must come to (docs/testing-your-flows.md)' },
      'dev-server': { type: 'boolean', help: 'replay on the dev server in real time, as recorded runs ran: a gate deadline takes its real time' },
      'unsafe-no-sandbox': UNSAFE_NO_SANDBOX,
    },
  },
  ...GATE_HELP,
  pause: { synopsis: 'dex pause ID', about: 'Stops the run after its current activity; a run that waits at a gate still waits for its answer, then stops.', options: {} },
  resume: { synopsis: 'dex resume ID', about: 'Lets a paused run go on.', options: {} },
  cancel: {
    synopsis: 'dex cancel ID',
    about: 'Cancels the run; a task rolls its worktree back to its last checkpoint.',
    options: {},
  },
  clean: {
    synopsis: 'dex clean',
    about:
      "Removes what ended runs left on this host: their worktrees and .base files under $DEX_HOME/worktrees, the dex/ branches of runs that did not complete, and dex demo's repositories; nothing of a run still open (docs/interfaces.md#dex-clean).",
    options: { 'dry-run': { type: 'boolean', help: 'list what it would remove, and remove nothing' }, repo: { type: 'string', value: 'URL|OWNER/NAME', help: "also the forge repository's hidden refs of fleet runs that did not complete (docs/fleet.md#nothing-lost)" } },
  },
  help: { synopsis: 'dex help [COMMAND]', about: "Every command, or one command's usage and options.", options: {} },
} satisfies Record<string, CommandHelp>;

/** The name of a command the help knows. */
export type HelpTopic = keyof typeof COMMAND_HELP;

const JSON_OPTION = { flag: '--json', help: 'one JSON document on stdout, nothing else there' };

/** An option as the help shows it: `--repo DIR`. */
const flagOf = (name: string, o: OptionHelp): string => `--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;

/** The help entry of `name`; an input error (exit 2) naming it when there is no such command. */
export function helpFor(name: string): CommandHelp {
  if (!Object.hasOwn(COMMAND_HELP, name)) throw new InvalidInput(`unknown command "${name}": \`dex help\` lists them`);
  return COMMAND_HELP[name as HelpTopic];
}

/** The one-line usage of `name`: its synopsis and every option. */
export function usageOf(name: HelpTopic): string {
  const { synopsis, options }: CommandHelp = COMMAND_HELP[name];
  const flags = Object.entries(options).map(([option, o]) => (o.required ? flagOf(option, o) : `[${flagOf(option, o)}]`));
  return [synopsis, ...flags].join(' ');
}

/** The options of `name` as the help lists them, `--json` last. */
export function optionLines(name: HelpTopic): { flag: string; help: string }[] {
  const { options }: CommandHelp = COMMAND_HELP[name];
  return [...Object.entries(options).map(([option, o]) => ({ flag: flagOf(option, o), help: o.help })), JSON_OPTION];
}

/** `dex help NAME` as text. */
export function renderCommandHelp(name: HelpTopic): string {
  const options = optionLines(name);
  const width = Math.max(...options.map((o) => o.flag.length));
  return [
    `usage: ${usageOf(name)}`,
    '',
    COMMAND_HELP[name].about,
    '',
    'options:',
    ...options.map((o) => `  ${o.flag.padEnd(width)}  ${o.help}`),
  ].join('\n');
}

/** `dex help` as text: every command's usage. */
export function renderOverview(): string {
  return [
    'dex — a durable executor for AI-driven work, on Temporal',
    '',
    ...(Object.keys(COMMAND_HELP) as HelpTopic[]).map((name) => `  ${usageOf(name)}`),
    '',
    '`dex help COMMAND` or `dex COMMAND --help`: that command and its options. Every command takes --json.',
    'Exit codes: 0 done, 1 the run ended failed/rejected/cancelled/over budget, 2 bad input or usage, 3 server unreachable.',
  ].join('\n');
}

import type { WorkerOptions } from '@temporalio/worker';
import { startBenchServer, startBenchWorker, type BenchServer } from '../dex-env';

/** What a side experiment was asked for on its command line. */
export interface ProbeArgs {
  /** Extra dynamic config (`--dc KEY=VALUE`, repeatable). */
  dc: string[];
  /** Extra `temporal server start-dev` arguments (`--arg X`, repeatable). */
  serverArgs: string[];
  /** Worker options as JSON (`--worker '{...}'`). */
  workerOptions: Partial<WorkerOptions>;
  /** Measured runs after one warm-up (`--runs N`). */
  runs: number;
  /** Whether dex's own dynamic config is left out (`--bare`). */
  bare: boolean;
  /** Concurrent runs (`--m N`), where the probe has them. */
  m: number;
  /** Rest between batches (`--pause MS`), where the probe has batches. */
  pauseMs: number;
  /** Start runs eagerly through a client on the worker's connection (`--eager`), as a dex command serving its runs does. */
  eager: boolean;
}

function parseProbeArgs(argv: string[], defaults: Partial<ProbeArgs>): ProbeArgs {
  const a: ProbeArgs = { dc: [], serverArgs: [], workerOptions: {}, runs: 8, bare: false, m: 64, pauseMs: 1000, eager: false, ...defaults };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--dc') a.dc.push(argv[++i]);
    else if (argv[i] === '--arg') a.serverArgs.push(argv[++i]);
    else if (argv[i] === '--worker') a.workerOptions = JSON.parse(argv[++i]) as Partial<WorkerOptions>;
    else if (argv[i] === '--runs') a.runs = Number(argv[++i]);
    else if (argv[i] === '--m') a.m = Number(argv[++i]);
    else if (argv[i] === '--pause') a.pauseMs = Number(argv[++i]);
    else if (argv[i] === '--bare') a.bare = true;
    else if (argv[i] === '--eager') a.eager = true;
    else throw new Error(`unknown argument: ${argv[i]}`);
  }
  return a;
}

/**
 * Runs a side experiment (bench/probe-*.ts) on a fresh dev server with a bench worker on queue
 * `probe`, both stopped afterwards, and exits the process with its outcome.
 */
export function runProbe(defaults: Partial<ProbeArgs>, probe: (server: BenchServer, args: ProbeArgs) => Promise<void>): void {
  const main = async () => {
    const args = parseProbeArgs(process.argv.slice(2), defaults);
    const server = await startBenchServer({ dynamicConfig: args.dc, args: args.serverArgs, defaults: !args.bare });
    const worker = await startBenchWorker(server.env, 'probe', { options: args.workerOptions });
    try {
      await probe(server, args);
    } finally {
      await worker.stop();
      await server.stop();
    }
  };
  exitWith(main);
}

/** Runs a side experiment's `main` and exits the process with its outcome. */
export function exitWith(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}

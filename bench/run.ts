/**
 * `npm run bench [-- --quick] [-- --json]`: B1–B5 in one run on this machine. Progress goes to
 * stderr; the results go to bench/results/<timestamp>.json and bench/results/latest.json,
 * and with --json to stdout as one JSON document.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { B1_SYSTEMS, runB1 } from './b1-overhead';
import { runB2 } from './b2-concurrency';
import { runB3 } from './b3-crash';
import { runB4 } from './b4-history';
import { runB5 } from './b5-gates';
import { runTurns } from './b6-turns';
import { startBenchServer, type BenchServer } from './dex-env';
import { FULL, QUICK, type BenchParams } from './params';
import { collectGarbage, settled } from './stats';

type Section = (server: BenchServer, params: BenchParams, log: (line: string) => void) => Promise<unknown>;

/** The sections in the order they run; roadmap and layer benchmarks join this list when they exist. */
const SECTIONS: [string, Section][] = [
  ['b1', runB1],
  ['b4', runB4],
  ['b5', runB5],
  ['turn', runTurns],
  ['b2', runB2],
  ['b3', runB3],
];

/** The B1 systems with no per-step number for some N: the smoke check fails on any. */
function missingB1(b1: unknown, params: BenchParams): string[] {
  const result = b1 as Record<string, { perStepMs?: Record<string, { median: number }> }> | undefined;
  return B1_SYSTEMS.filter((system) => params.b1.n.some((n) => !Number.isFinite(result?.[system]?.perStepMs?.[n]?.median)));
}

async function main(): Promise<number> {
  const args = new Set(process.argv.slice(2));
  const params = args.has('--quick') ? QUICK : FULL;
  // `--only=b2,b3` runs those sections alone (to study one; docs/performance.md is written from a full run).
  const only = [...args].find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const unknown = only?.filter((name) => !SECTIONS.some(([n]) => n === name)) ?? [];
  if (unknown.length) {
    log(`bench: no section ${unknown.join(', ')} (sections: ${SECTIONS.map(([n]) => n).join(', ')})`);
    return 2;
  }
  const startedAt = new Date();
  const results: Record<string, unknown> = {};
  const failures: string[] = [];
  for (const [name, section] of SECTIONS.filter(([n]) => !only || only.includes(n))) {
    // Each section on a dev server of its own, so no section measures what an earlier one left
    // behind (B5 leaves 1,100 runs parked at a gate), and `--only` runs it as a full run does.
    const server = await startBenchServer();
    try {
      // And once it is quiet (a dev server's start-up work).
      if (server.pid) log(`${name}: server quiet after ${((await settled(server.pid)) / 1000).toFixed(1)} s`);
      log(`${name}: bench process heap ${collectGarbage()}`);
      const t0 = Date.now();
      try {
        results[name] = await section(server, params, log);
      } catch (err) {
        failures.push(name);
        results[name] = { error: err instanceof Error ? err.message : String(err) };
        log(`${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      }
      log(`${name} took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    } finally {
      await server.stop();
    }
  }
  const missing = missingB1(results.b1, params);
  const doc = {
    startedAt: startedAt.toISOString(),
    seconds: Math.round((Date.now() - startedAt.getTime()) / 1000),
    quick: params.quick,
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
    params,
    ...results,
  };
  const dir = join(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const text = JSON.stringify(doc, null, 2) + '\n';
  // A quick (smoke) run or some sections alone never replace the full run that docs/performance.md is written from.
  const kind = params.quick ? '-quick' : only ? '-partial' : '';
  const latest = `latest${kind}.json`;
  writeFileSync(join(dir, `${startedAt.toISOString().replace(/[:.]/g, '-')}${kind}.json`), text);
  writeFileSync(join(dir, latest), text);
  if (args.has('--json')) process.stdout.write(text);
  else log(`results: ${join(dir, latest)} (${doc.seconds} s)`);
  if (missing.length) log(`no B1 numbers from: ${missing.join(', ')}`);
  return failures.length || missing.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);

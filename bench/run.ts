/**
 * `npm run bench [-- --quick] [-- --json]`: B1–B5 in one run on this machine. Progress goes to
 * stderr; the results go to bench/results/<timestamp>.json and bench/results/latest.json,
 * and with --json to stdout as one JSON document.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { B1_SYSTEMS, FULL, QUICK, type BenchParams } from './params';
import { SECTIONS } from './sections';

/**
 * Runs one section in a process of its own (bench/run-section.ts) and returns its result. A
 * section measures dex's worker in this process, as `dex worker` runs in its own: in one shared
 * process B2's worker paid for what the sections before it left on the heap (docs/performance.md, opening paragraph).
 */
async function runSection(name: string, quick: boolean): Promise<{ result: unknown } | { error: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'run-section.ts'), name, ...(quick ? ['--quick'] : [])], {
    cwd: join(__dirname, '..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    return JSON.parse(out.trim().split('\n').pop() ?? '') as { result: unknown } | { error: string };
  } catch {
    return { error: `section process exited with ${code} and no result` };
  }
}

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
  for (const [name] of SECTIONS.filter(([n]) => !only || only.includes(n))) {
    // Each section on a dev server and in a process of its own, so no section measures what an
    // earlier one left behind (B5 leaves 1,100 runs parked at a gate), and `--only` runs it as a full run does.
    const outcome = await runSection(name, params.quick);
    if ('error' in outcome) failures.push(name);
    results[name] = 'error' in outcome ? { error: outcome.error } : outcome.result;
  }
  // B1's smoke check applies when B1 ran: `--only` without b1 has no B1 numbers to miss.
  const missing = !only || only.includes('b1') ? missingB1(results.b1, params) : [];
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

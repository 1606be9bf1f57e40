/**
 * `tsx bench/run-section.ts NAME [--quick]`: one bench section on a dev server of its own, in this
 * process of its own (bench/run.ts starts one per section). Progress goes to stderr; the section's
 * result goes to stdout as one JSON document, `{ "result": … }` or `{ "error": "…" }`.
 */
import { startBenchServer } from './dex-env';
import { FULL, QUICK } from './params';
import { SECTIONS } from './sections';
import { settled } from './stats';

async function main(): Promise<number> {
  const [name, ...flags] = process.argv.slice(2);
  const params = flags.includes('--quick') ? QUICK : FULL;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const load = SECTIONS.find(([n]) => n === name)?.[1];
  if (!load) {
    log(`bench: no section ${name} (sections: ${SECTIONS.map(([n]) => n).join(', ')})`);
    return 2;
  }
  const section = load();
  const server = await startBenchServer();
  let outcome: { result: unknown } | { error: string };
  try {
    // Measured once the server is quiet (a dev server's start-up work).
    if (server.pid) log(`${name}: server quiet after ${((await settled(server.pid)) / 1000).toFixed(1)} s`);
    const t0 = Date.now();
    try {
      outcome = { result: await section(server, params, log) };
    } catch (err) {
      outcome = { error: err instanceof Error ? err.message : String(err) };
      log(`${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    }
    log(`${name} took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    await server.stop();
  }
  process.stdout.write(JSON.stringify(outcome) + '\n');
  return 'error' in outcome ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench section failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);

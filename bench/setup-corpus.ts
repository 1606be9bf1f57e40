/**
 * `npm run bench:corpus -- --corpus=DIR [--only=a,b] [--resume] [--report] [--results=FILE] [--task] [--memory-mb=N] [--setup-env=A,B]`: the set-up corpus.
 * For each git clone of a public project in DIR (clones live outside this repository; the
 * manifest, bench/setup-corpus.yaml, names each one's `owner/name`), it sets up a worktree as a
 * task's setupWorktree does, cold then warm, and runs the project's suite as verify does, in the
 * sandbox (bench/corpus/setup-corpus-project.ts). Results go to bench/results/setup-corpus.json, one
 * entry per project, written after each, so a run can be resumed or a project rerun alone;
 * the markdown table goes to stdout. Not a section of `npm run bench`: CI has no clones.
 * With `--task` each project runs as two real `dex task` runs instead (bench/corpus/setup-corpus-task.ts):
 * slower, and what a person sees; the default calls setup's and verify's functions directly.
 * `--memory-mb` (the sandbox's address-space limit) and `--setup-env` (`setup.env`: variables of
 * this environment setup gets) are to see what fails past a first failure, with `--results`
 * elsewhere: the baseline is dex as it is, with nothing written.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { loadDexConfig } from '../client/config/config-file';
import { plansFor } from '../host/dependencies/prepare-dependencies';
import { corpusMarkdown, successRate, whyNot } from './corpus/setup-corpus-report';
import { baseResult, runCorpusProject, type CorpusEntry, type CorpusResult } from './corpus/setup-corpus-project';
import { runCorpusTask } from './corpus/setup-corpus-task';

const log = (line: string) => process.stderr.write(`${line}\n`);

/** `--name=value` (or `--name value`) from the command line. */
function option(args: string[], name: string): string | undefined {
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  return args[i].includes('=') ? args[i].slice(args[i].indexOf('=') + 1) : args[i + 1];
}

/** The manifest's projects by folder name; none when there is no manifest. */
function readManifest(path: string): Record<string, CorpusEntry> {
  if (!existsSync(path)) return {};
  const doc = parse(readFileSync(path, 'utf8')) as { projects?: Record<string, CorpusEntry> } | null;
  return doc?.projects ?? {};
}

function readResults(path: string): Record<string, CorpusResult> {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as { projects: Record<string, CorpusResult> }).projects : {};
}

/** A project left out by the manifest: what dex would detect in it, and why it is out. */
function excludedResult(name: string, clone: string, entry: CorpusEntry): CorpusResult {
  const { setup, verify } = loadDexConfig(clone);
  const plan = setup === false ? [] : plansFor(clone, setup, {}).map((p) => ({ ecosystem: p.ecosystem, command: p.command }));
  const given = !!entry.verify?.length;
  return { name, repo: entry.repo, kind: entry.kind, commit: '', plan, verify: given ? entry.verify! : verify, verifySource: given ? 'manifest' : verify.length ? 'detected' : 'none', passed: false, excluded: entry.exclude, notes: entry.notes, log: '', ranAt: new Date().toISOString() };
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const root = join(__dirname, '..');
  const resultsPath = resolve(option(args, 'results') ?? join(__dirname, 'results', 'setup-corpus.json'));
  const results = readResults(resultsPath);
  if (args.includes('--report')) {
    process.stdout.write(corpusMarkdown(Object.values(results)));
    return 0;
  }
  const corpus = option(args, 'corpus') ?? process.env.DEX_CORPUS;
  if (!corpus || !existsSync(corpus)) {
    log(`bench:corpus: no corpus folder ${corpus ?? ''}: pass --corpus=DIR (or DEX_CORPUS), a folder of git clones named as in bench/setup-corpus.yaml`);
    return 2;
  }
  const manifest = readManifest(resolve(option(args, 'manifest') ?? join(root, 'bench', 'setup-corpus.yaml')));
  const clones = readdirSync(corpus).filter((name) => existsSync(join(corpus, name, '.git'))).sort();
  const only = option(args, 'only')?.split(',').filter(Boolean);
  const unknown = only?.filter((name) => !clones.includes(name)) ?? [];
  if (unknown.length) {
    log(`bench:corpus: no clone ${unknown.join(', ')} in ${corpus}`);
    return 2;
  }
  const missing = Object.keys(manifest).filter((name) => !clones.includes(name));
  if (missing.length) log(`bench:corpus: the manifest's ${missing.join(', ')} not cloned in ${corpus}: skipped`);
  const chosen = clones.filter((name) => (!only || only.includes(name)) && !(args.includes('--resume') && results[name]));
  const limits = {
    setupTimeoutMs: Number(option(args, 'setup-timeout') ?? 900) * 1000,
    verifyTimeoutMs: Number(option(args, 'verify-timeout') ?? 300) * 1000,
    memoryMb: option(args, 'memory-mb') ? Number(option(args, 'memory-mb')) : undefined,
    setupEnv: option(args, 'setup-env')?.split(',').filter(Boolean),
  };
  if (args.includes('--task') && (limits.memoryMb || limits.setupEnv)) {
    log('bench:corpus: --memory-mb and --setup-env change the functions\' run only: a dex task reads its limits from the project\'s dex.config.yaml');
    return 2;
  }
  const work = resolve(option(args, 'work') ?? join(tmpdir(), 'dex-setup-corpus'));
  mkdirSync(work, { recursive: true });
  mkdirSync(join(resultsPath, '..'), { recursive: true });
  for (const [i, name] of chosen.entries()) {
    const entry = manifest[name] ?? {};
    const started = Date.now();
    log(`[${i + 1}/${chosen.length}] ${name}${entry.repo ? ` (${entry.repo})` : ''}`);
    const result: CorpusResult = entry.exclude
      ? excludedResult(name, join(corpus, name), entry)
      : args.includes('--task')
        ? await runCorpusTask(name, join(corpus, name), entry, join(work, name), limits, { ...(await baseResult(name, join(corpus, name), entry, limits, '')).result, via: 'dex task' }, (line) => log(`  ${line}`))
        : await runCorpusProject(name, join(corpus, name), entry, join(work, name), limits, (line) => log(`  ${line}`));
    results[name] = result;
    // Written after every project: a run stopped half-way keeps what it measured (`--resume` goes on from there).
    writeFileSync(resultsPath, `${JSON.stringify({ corpus: resolve(corpus), projects: results }, null, 2)}\n`);
    log(`  ${name}: ${result.excluded ? 'excluded' : result.passed ? 'PASSED' : `FAILED: ${whyNot(result)}`} (${Math.round((Date.now() - started) / 1000)} s; log ${result.log || 'none'})`);
  }
  const all = Object.values(results);
  process.stdout.write(corpusMarkdown(all));
  const rate = successRate(all);
  log(`results: ${resultsPath} — ${rate.zeroConfig}/${rate.all} passed with nothing written (${rate.zeroConfigPercent}%, exclusions and written verifies counted as failures); ${rate.passed}/${rate.counted} without the exclusions (${rate.percent}%)`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench:corpus failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);

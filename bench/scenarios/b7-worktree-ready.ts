import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DependencyCache } from '../../host/dependencies/dependency-cache';
import { prepareDependencies } from '../../host/dependencies/prepare-dependencies';
import type { SetupStep } from '../../core/run/setup-types';
import type { BenchServer } from '../dex-env';
import type { BenchParams } from '../params';
import { npmEnv, run, writeReadyProject, type ReadyProject } from '../ready-project';
import { mib, quantile, round, timed } from '../stats';

/** The ways a fresh worktree is made ready, in the order each run measures them. */
export const READY_WAYS = ['npmCiEmptyCache', 'npmCiWarmCache', 'dexCold', 'dexWarm', 'dexWarmCopy', 'dexOwner'] as const;
/** One way of making a worktree ready. */
export type ReadyWay = (typeof READY_WAYS)[number];

/** Worktree ready time (issue 24): a plain `npm ci` against dex's setup, cold, from its cache and from the owner's checkout. */
export interface ReadyResult {
  /** Packages the project's package-lock.json lists (its `packages` but the root). */
  packages: number;
  runs: number;
  /** The filesystem of the temp folder that holds caches and worktrees (its type and device): copies cost what it makes them cost. */
  filesystem: string;
  /** What every way puts in a worktree: the packages in node_modules (the lockfile's, less those for other platforms), its files and folders, its size. */
  nodeModules: { packages: number; entries: number; mib: number };
  medianMs: Record<ReadyWay, number>;
  /** Every run's figure, in the order run. */
  samplesMs: Record<ReadyWay, number[]>;
  /** dex warm / `npm ci` with an empty npm cache, and with a warm one. */
  warmVsNpmCi: { emptyCache: number; warmCache: number };
  /** `git worktree add`'s median, which no figure above includes. */
  worktreeAddMs: number;
  note: string;
}

/** Room for the slowest install: a cold `npm ci` of a few hundred packages over the network. */
const INSTALL_TIMEOUT_MS = 600_000;

/** The one folder of this section's temp files, and a fresh subfolder of it. */
class Scratch {
  private constructor(readonly root: string) {}
  static async make(): Promise<Scratch> {
    return new Scratch(await mkdtemp(join(tmpdir(), 'dex-bench-ready-')));
  }
  fresh(name: string): Promise<string> {
    return mkdtemp(join(this.root, `${name}-`));
  }
}

/** Runs `fn` in a new detached worktree of `project`, removed afterwards; `adds` gets `git worktree add`'s time. */
async function inWorktree<T>(project: ReadyProject, scratch: Scratch, adds: number[], fn: (worktree: string) => Promise<T>): Promise<T> {
  const worktree = join(await scratch.fresh('worktree'), 'wt');
  adds.push((await timed(() => run('git', ['worktree', 'add', '-q', '--detach', worktree, 'HEAD'], project.dir))).ms);
  try {
    // What the steps before wrote reaches the disk first, so no figure pays for an earlier step's writeback.
    await run('sync', [], project.dir);
    const value = await fn(worktree);
    // Whatever made it ready, the worktree must hold the project's tools.
    for (const bin of ['jest', 'eslint']) if (!existsSync(join(worktree, 'node_modules', '.bin', bin))) throw new Error(`ready: ${worktree} has no node_modules/.bin/${bin}`);
    return value;
  } finally {
    await rm(worktree, { recursive: true, force: true });
    await run('git', ['worktree', 'prune'], project.dir);
  }
}

/** The packages `npm ci` installed in `dir` (its hidden lockfile's), the files and folders under it, and their size in MiB. */
async function measureTree(dir: string): Promise<ReadyResult['nodeModules']> {
  const installed = JSON.parse(await readFile(join(dir, '.package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
  const bytes = Number((await run('du', ['-sb', dir], dir)).split('\t')[0]);
  return { packages: Object.keys(installed.packages).filter((path) => path !== '').length, entries: (await readdir(dir, { recursive: true })).length, mib: mib(bytes) };
}

/** A plain `npm ci` in `worktree` with `npmCache` as npm's cache, on the host as a user runs it; its ms. */
async function npmCi(worktree: string, npmCache: string): Promise<number> {
  return (await timed(() => run('npm', ['ci', '--no-audit', '--no-fund'], worktree, npmEnv(npmCache)))).ms;
}

/**
 * dex's setup of `worktree` with the dependency cache at `cacheDir`; its ms, once its one npm step
 * came from `expected`. With `spares: false` the cache copies every time (it never takes a spare).
 */
async function dexReady(project: ReadyProject, worktree: string, cacheDir: string, downloads: string, expected: SetupStep['source'], spares = true): Promise<number> {
  const cache = new DependencyCache(cacheDir, { spares });
  const { ms, value } = await timed(() => prepareDependencies({ worktree, ownerDir: project.dir, cache, downloads, command: { timeoutMs: INSTALL_TIMEOUT_MS } }));
  const [step, ...more] = value.steps;
  if (step?.ecosystem !== 'npm' || step.source !== expected || more.length) {
    throw new Error(`ready: expected one npm step from ${expected}, got ${JSON.stringify(value.steps)}\n${value.report.slice(-1500)}`);
  }
  // The next worktree's spare is made after each setup, as a long-lived worker makes it between tasks.
  await cache.prepareSpare(step.key);
  return ms;
}

/**
 * Measures how long a fresh worktree of an npm project takes to get ready, every way in the same
 * run: without dex (`npm ci`, empty and warm npm cache) and with dex's setup (cold, warm, from the
 * owner's checkout). Needs no Temporal server: setup runs on the host, before any workflow.
 */
export async function runReady(_server: BenchServer, params: BenchParams, log: (line: string) => void): Promise<ReadyResult> {
  const scratch = await Scratch.make();
  try {
    const project = await writeReadyProject(scratch.root);
    log(`ready: project of ${project.packages} packages at ${project.dir}`);
    const samples = Object.fromEntries(READY_WAYS.map((way) => [way, [] as number[]])) as Record<ReadyWay, number[]>;
    const adds: number[] = [];
    const note = (way: ReadyWay, ms: number) => {
      samples[way].push(ms);
      log(`ready ${way}: ${Math.round(ms)} ms`);
    };

    // The owner's checkout has no node_modules yet, so dex's cold setup installs rather than copying the owner's.
    for (let i = 0; i < params.ready.runs; i++) {
      const npmCache = await scratch.fresh('npm-cache');
      note('npmCiEmptyCache', await inWorktree(project, scratch, adds, (wt) => npmCi(wt, npmCache)));
      note('npmCiWarmCache', await inWorktree(project, scratch, adds, (wt) => npmCi(wt, npmCache)));
      const cacheDir = await scratch.fresh('dex-cache');
      const downloads = await scratch.fresh('downloads');
      note('dexCold', await inWorktree(project, scratch, adds, (wt) => dexReady(project, wt, cacheDir, downloads, 'installed')));
      note('dexWarm', await inWorktree(project, scratch, adds, (wt) => dexReady(project, wt, cacheDir, downloads, 'cache')));
      note('dexWarmCopy', await inWorktree(project, scratch, adds, (wt) => dexReady(project, wt, cacheDir, downloads, 'cache', false)));
      for (const dir of [npmCache, cacheDir, downloads]) await rm(dir, { recursive: true, force: true });
    }

    // The owner installs once, untimed, as a user who works in the checkout has; each run then starts from an empty dex cache.
    const ownerCache = await scratch.fresh('owner-npm-cache');
    await run('npm', ['ci', '--no-audit', '--no-fund'], project.dir, npmEnv(ownerCache));
    const nodeModules = await measureTree(join(project.dir, 'node_modules'));
    for (let i = 0; i < params.ready.runs; i++) {
      const cacheDir = await scratch.fresh('dex-cache');
      const downloads = await scratch.fresh('downloads');
      note('dexOwner', await inWorktree(project, scratch, adds, (wt) => dexReady(project, wt, cacheDir, downloads, 'owner')));
      for (const dir of [cacheDir, downloads]) await rm(dir, { recursive: true, force: true });
    }

    const medianMs = Object.fromEntries(READY_WAYS.map((way) => [way, round(quantile(samples[way], 0.5), 0)])) as Record<ReadyWay, number>;
    const warmVsNpmCi = { emptyCache: round(medianMs.dexWarm / medianMs.npmCiEmptyCache), warmCache: round(medianMs.dexWarm / medianMs.npmCiWarmCache) };
    log(`ready medians ms: ${READY_WAYS.map((way) => `${way} ${medianMs[way]}`).join(', ')}; warm / npm ci ${warmVsNpmCi.emptyCache} (empty npm cache), ${warmVsNpmCi.warmCache} (warm)`);
    return {
      packages: project.packages,
      runs: params.ready.runs,
      filesystem: (await run('findmnt', ['-n', '-o', 'FSTYPE,SOURCE', '-T', scratch.root], scratch.root)).trim().replace(/\s+/, ' on '),
      nodeModules,
      medianMs,
      samplesMs: Object.fromEntries(READY_WAYS.map((way) => [way, samples[way].map((ms) => round(ms, 0))])) as Record<ReadyWay, number[]>,
      warmVsNpmCi,
      worktreeAddMs: round(quantile(adds, 0.5), 0),
      note: 'Each figure is the time of the install or setup alone in a fresh `git worktree add`; dex cold and warm share a dependency cache per run, dex owner starts from an empty one.',
    };
  } finally {
    await rm(scratch.root, { recursive: true, force: true });
  }
}

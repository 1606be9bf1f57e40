/**
 * One project of the set-up corpus (bench/setup-corpus.ts): what dex detects in a clone of a
 * public project, its setup cold (empty dependency and download caches) and warm (a second
 * worktree from the cache), and whether the project's own suite passes at baseline, in the sandbox.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadDexConfig } from '../../client/config/config-file';
import type { SetupStep } from '../../core/run/setup-types';
import { failureCause } from '../../core/task/verify-failures';
import { detectTestCommands } from '../../host/dependencies/test-command';
import { DependencyCache } from '../../host/dependencies/dependency-cache';
import { plansFor, prepareDependencies } from '../../host/dependencies/prepare-dependencies';
import { SetupFailed } from '../../host/dependencies/setup-failed';
import { runAgentCommand } from '../../host/sandbox/run-agent-command';
import { removeTree } from '../../host/worktree/remove-tree';
import { outputTail, type ShellCommandResult } from '../../host/shell/shell-command';

const execFileAsync = promisify(execFile);

/** One project as the manifest (bench/setup-corpus.yaml) describes it; every field optional. */
export interface CorpusEntry {
  /** `owner/name` of the public repository the folder is a clone of. */
  repo?: string;
  /** What the project was picked for (`pnpm`, `yarn berry`, `uv`, `rust, no Cargo.lock`…). */
  kind?: string;
  /** The suite's commands, for a project where dex detects none. */
  verify?: string[];
  notes?: string;
  /** Why the project is left out: its suite does not pass here even run by hand. */
  exclude?: string;
}

/** Limits of one project's run. */
export interface CorpusLimits {
  /** Each install command's time before it is killed. */
  setupTimeoutMs: number;
  /** Each verify command's time before it is killed. */
  verifyTimeoutMs: number;
  /** The sandbox's address-space limit instead of the project's (to see what fails past it); the baseline keeps dex's. */
  memoryMb?: number;
  /** Worker environment variables setup gets (`setup.env`), to see what fails past a missing one; the baseline passes none. */
  setupEnv?: string[];
}

/** What one project's run found. */
export interface CorpusResult {
  name: string;
  repo?: string;
  kind?: string;
  commit: string;
  /** The detected plans: each ecosystem and its install command. */
  plan: { ecosystem: string; command: string }[];
  verify: string[];
  /** Where the verify came from: dex's own default (`detected`), the manifest, or nowhere. */
  verifySource: 'detected' | 'manifest' | 'none';
  coldSeconds?: number;
  warmSeconds?: number;
  coldSteps?: SetupStep[];
  warmSteps?: SetupStep[];
  /** The failed setup's one line (cold, or warm when only the restore failed). */
  setupError?: string;
  verifySeconds?: number;
  verifyPassed?: boolean;
  /** The failing verify command and the line of its output that says why. */
  verifyFailure?: { command: string; cause: string };
  /** With a failed warm verify: whether the same commands passed in the cold worktree (a restore that broke what the install made). */
  coldVerifyPassed?: boolean;
  /** How it ran: dex's setup and verify functions, or two real `dex task` runs (bench/corpus/setup-corpus-task.ts). */
  via?: 'functions' | 'dex task';
  /** Set up and passed its suite with no `setup:` written. */
  passed: boolean;
  excluded?: string;
  notes?: string;
  /** Where each command's full output was written. */
  log: string;
  ranAt: string;
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** Runs `fn`, returning its value and how long it took. */
async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = Date.now();
  const value = await fn();
  return { ms: Date.now() - started, value };
}

const git = async (cwd: string, ...args: string[]) => (await execFileAsync('git', args, { cwd, maxBuffer: 16 * 1024 * 1024 })).stdout.trim();

/** The one line of a failed command: the line its output names as the cause, else how it ended. */
function causeOf(run: ShellCommandResult): string {
  if (run.timedOut) return 'timed out';
  const last = run.output.split('\n').map((l) => l.trim()).filter(Boolean).at(-1);
  const how = run.exitCode === null ? `killed by ${run.killedBy}` : `exit code ${run.exitCode}`;
  return (failureCause(run.output) ?? (last ? `${how}: ${last}` : how)).split('\n').join(' ⏎ ').slice(0, 300);
}

/**
 * What a run of project `name` starts from: what dex detects in the clone (its plans, its verify or
 * the manifest's), and the config the run uses (the project's own, with the limits' overrides).
 */
export async function baseResult(name: string, clone: string, entry: CorpusEntry, limits: CorpusLimits, log: string) {
  const loaded = loadDexConfig(clone);
  const config = limits.memoryMb ? { ...loaded, sandbox: { ...loaded.sandbox, limits: { ...loaded.sandbox.limits, memoryMb: limits.memoryMb } } } : loaded;
  // `setup: false` in a project's own dex.config.yaml turns setup off: nothing is detected then.
  const setup = config.setup === false ? undefined : limits.setupEnv?.length ? { ...config.setup, env: [...(config.setup?.env ?? []), ...limits.setupEnv] } : config.setup;
  const detected = config.verify;
  const verify = entry.verify?.length ? entry.verify : detected;
  const result: CorpusResult = {
    name,
    repo: entry.repo,
    kind: entry.kind,
    commit: await git(clone, 'rev-parse', 'HEAD'),
    plan: (config.setup === false ? [] : plansFor(clone, setup, {})).map((p) => ({ ecosystem: p.ecosystem, command: p.command })),
    verify,
    verifySource: entry.verify?.length ? 'manifest' : detected.length ? 'detected' : 'none',
    passed: false,
    via: 'functions',
    notes: entry.notes,
    log,
    ranAt: new Date().toISOString(),
  };
  return { result, config, setup };
}

/**
 * Runs project `name` (a clone at `clone`) in `work` (a scratch folder of its own, removed
 * afterwards): two worktrees of its HEAD, set up one after the other from one empty cache, then its
 * verify in the warm one (and in the cold one too when that fails). `log` gets every command's output.
 */
export async function runCorpusProject(name: string, clone: string, entry: CorpusEntry, work: string, limits: CorpusLimits, say: (line: string) => void): Promise<CorpusResult> {
  const log: string[] = [];
  const { result, config, setup } = await baseResult(name, clone, entry, limits, join(work, '..', `${name}.log`));
  const logPath = result.log;
  let verify = result.verify;
  await removeTree(work);
  await mkdir(work, { recursive: true });
  // A cache of this project's own, empty: the cold setup downloads everything, as on a new machine.
  const cache = new DependencyCache(join(work, 'cache'));
  const downloads = join(work, 'cache', '.downloads');
  const worktrees = { cold: join(work, 'cold'), warm: join(work, 'warm') };
  const setUp = async (worktree: string): Promise<{ ms: number; steps?: SetupStep[]; error?: string }> => {
    // A run killed before its clean-up left the worktree registered: forget it (its folder is gone).
    await git(clone, 'worktree', 'prune');
    await git(clone, 'worktree', 'add', '-q', '--detach', worktree, 'HEAD');
    try {
      const { ms, value } = await timed(() =>
        prepareDependencies({ worktree, ownerDir: clone, config: setup, sandbox: config.sandbox, cache, downloads, command: { timeoutMs: limits.setupTimeoutMs } }),
      );
      log.push(`## setup ${worktree} (${ms} ms)\n${value.report}`);
      // The next task finds the spare a finished setup leaves ready (docs/real-repositories.md#the-cache).
      await Promise.all(value.steps.filter((s) => s.key).map((s) => cache.prepareSpare(s.key)));
      return { ms, steps: value.steps };
    } catch (err) {
      if (!(err instanceof SetupFailed)) throw err;
      log.push(`## setup ${worktree} failed\n${err.message}\n${err.tail}`);
      return { ms: 0, error: err.message };
    }
  };
  const runVerify = async (worktree: string): Promise<{ ms: number; failure?: { command: string; cause: string } }> => {
    const started = Date.now();
    for (const command of verify) {
      const run = await runAgentCommand(command, worktree, config.sandbox, { timeoutMs: limits.verifyTimeoutMs, outputLimitBytes: 256 * 1024 });
      log.push(`## verify ${worktree}: ${command} (exit ${run.exitCode}${run.timedOut ? ', timed out' : ''}, ${run.durationMs} ms)\n${outputTail(run)}`);
      if (run.timedOut || run.exitCode !== 0) return { ms: Date.now() - started, failure: { command, cause: causeOf(run) } };
    }
    return { ms: Date.now() - started };
  };
  try {
    say(`${name}: plan ${result.plan.map((p) => p.command).join(' · ') || 'nothing'}; verify ${verify.join(' && ') || 'none'} (${result.verifySource})`);
    const cold = await setUp(worktrees.cold);
    if (cold.error) {
      result.setupError = cold.error;
      return result;
    }
    result.coldSeconds = seconds(cold.ms);
    result.coldSteps = cold.steps;
    say(`${name}: cold setup ${result.coldSeconds} s`);
    const warm = await setUp(worktrees.warm);
    if (warm.error) {
      result.setupError = `warm: ${warm.error}`;
      return result;
    }
    result.warmSeconds = seconds(warm.ms);
    result.warmSteps = warm.steps;
    say(`${name}: warm setup ${result.warmSeconds} s`);
    // As a task does: with no verify configured, the project's own suite, picked once setup made the worktree ready.
    if (result.verifySource !== 'manifest' && config.detectVerify && config.setup !== false) {
      verify = detectTestCommands(worktrees.warm);
      result.verify = verify;
      result.verifySource = verify.length ? 'detected' : 'none';
      say(`${name}: verify ${verify.join(' && ') || 'none'} (${result.verifySource})`);
    }
    if (!verify.length) {
      result.verifyFailure = { command: '', cause: 'no verify: dex detects none and the manifest gives none' };
      return result;
    }
    const checked = await runVerify(worktrees.warm);
    result.verifySeconds = seconds(checked.ms);
    result.verifyPassed = !checked.failure;
    result.verifyFailure = checked.failure;
    if (checked.failure) result.coldVerifyPassed = !(await runVerify(worktrees.cold)).failure;
    result.passed = result.verifyPassed;
    say(`${name}: verify ${result.verifyPassed ? 'passed' : `failed: ${checked.failure!.cause}`} (${result.verifySeconds} s)`);
    return result;
  } finally {
    await writeFile(logPath, `${log.join('\n\n')}\n`);
    for (const worktree of Object.values(worktrees)) await git(clone, 'worktree', 'remove', '--force', worktree).catch(() => undefined);
    await git(clone, 'worktree', 'prune');
    // Go's module cache is read-only, and a test may leave paths past PATH_MAX: removeTree copes with both.
    await removeTree(work);
  }
}

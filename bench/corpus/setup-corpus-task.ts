/**
 * One project of the set-up corpus as a person meets it (bench/setup-corpus.ts `--task`): two real
 * `dex task` runs on the clone, each a no-change task whose only model turn (a replay cassette)
 * completes at once, on dex's embedded dev server, with a dependency cache of their own that
 * starts empty: the first sets up cold, the second from the cache. Their `--json` results give the
 * setup line, whether verify passed, and why not.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { completionTurn, toJsonl } from '../../test/support/model/cassette-builder';
import { removeTree } from '../../host/worktree/remove-tree';
import type { CorpusEntry, CorpusLimits, CorpusResult } from './setup-corpus-project';

const execFileAsync = promisify(execFile);
const DEX = join(__dirname, '..', '..', 'bin', 'dex.js');
/** The task's title: its id in the cassette and in the workflow id. */
const TITLE = 'corpus baseline';

/** What `dex task --json` prints (the fields read here). */
interface TaskJson {
  state: string;
  error?: string;
  result?: { setup?: string; verifyPassed?: boolean; verifyCause?: string; verifyTail?: string; error?: string };
}

/** The seconds of a setup line (`npm installed 2.0 s · python from cache 0.1 s`), summed. */
const setupSeconds = (line: string | undefined) => (line ? Math.round(10 * [...line.matchAll(/([\d.]+) s\b/g)].reduce((sum, m) => sum + Number(m[1]), 0)) / 10 : undefined);

/** Runs `dex task` on `clone` with `env`, returning its JSON result (or the failure of the command itself). */
async function dexTask(clone: string, cassette: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<TaskJson> {
  const args = [DEX, 'task', TITLE, '--repo', clone, '--llm', `replay:${cassette}`, '--json'];
  const done = await execFileAsync(process.execPath, args, { env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }).catch((err: { stdout?: string; stderr?: string; message: string }) => err);
  try {
    return JSON.parse(done.stdout ?? '') as TaskJson;
  } catch {
    return { state: 'failed', error: `dex task printed no result: ${(done.stderr ?? '').trim().split('\n').at(-1) ?? ''}` };
  }
}

/** The verify's one line from a task's result. */
function verifyCause(task: TaskJson): string {
  const tail = task.result?.verifyTail?.trim().split('\n').at(-1);
  return [task.result?.verifyCause, tail && tail !== task.result?.verifyCause ? tail : ''].filter(Boolean).join(': ').slice(0, 300);
}

/**
 * Runs project `name` through `dex task` in `work` (its DEX_HOME, removed afterwards). A verify the
 * manifest gives is written as the clone's dex.config.yaml for the runs (`verify:` alone; a clone
 * with a config of its own keeps it) and removed after.
 */
export async function runCorpusTask(name: string, clone: string, entry: CorpusEntry, work: string, limits: CorpusLimits, base: CorpusResult, say: (line: string) => void): Promise<CorpusResult> {
  const result: CorpusResult = { ...base };
  await removeTree(work);
  await mkdir(work, { recursive: true });
  const cassette = join(work, 'cassette.jsonl');
  // One completion per run, never more: a verify that fails asks the model again, and the cassette then says it has no line left.
  await writeFile(cassette, toJsonl([completionTurn('*', { status: 'complete', summary: 'no change: the baseline' })]));
  const config = join(clone, 'dex.config.yaml');
  const wrote = !!entry.verify?.length && !existsSync(config);
  if (wrote) await writeFile(config, stringify({ verify: entry.verify }));
  const env: NodeJS.ProcessEnv = { ...process.env, DEX_HOME: join(work, 'home'), DEX_DEPS_CACHE: join(work, 'home', 'deps'), ANTHROPIC_API_KEY: '' };
  const timeoutMs = limits.setupTimeoutMs + limits.verifyTimeoutMs + 120_000;
  try {
    say(`${name}: dex task (cold)`);
    const cold = await dexTask(clone, cassette, env, timeoutMs);
    result.coldSeconds = setupSeconds(cold.result?.setup);
    const error = cold.result?.error ?? cold.error;
    if (error?.startsWith('setup failed')) {
      result.setupError = error;
      return result;
    }
    say(`${name}: setup ${cold.result?.setup ?? 'none'}; dex task (warm)`);
    const warm = await dexTask(clone, cassette, env, timeoutMs);
    result.warmSeconds = setupSeconds(warm.result?.setup);
    if ((warm.result?.error ?? warm.error)?.startsWith('setup failed')) {
      result.setupError = `warm: ${warm.result?.error ?? warm.error}`;
      return result;
    }
    result.verifyPassed = warm.result?.verifyPassed === true;
    result.coldVerifyPassed = cold.result?.verifyPassed;
    if (!result.verifyPassed) result.verifyFailure = { command: result.verify.join(' && '), cause: warm.result?.verifyPassed === false ? verifyCause(warm) : (warm.result?.error ?? warm.error ?? warm.state) };
    if (!result.verify.length) result.verifyFailure = { command: '', cause: 'no verify: dex detects none and the manifest gives none' };
    result.passed = result.verifyPassed && result.verify.length > 0;
    say(`${name}: setup ${warm.result?.setup ?? 'none'}; verify ${result.passed ? 'passed' : `failed: ${result.verifyFailure?.cause}`}`);
    return result;
  } finally {
    if (wrote) await rm(config, { force: true });
    await removeTree(work);
    // The tasks' worktrees went with DEX_HOME; their branches in the clone go too.
    await execFileAsync('git', ['worktree', 'prune'], { cwd: clone });
    const branches = (await execFileAsync('git', ['branch', '--list', 'dex/task-*-corpus-baseline-*', '--format=%(refname:short)'], { cwd: clone })).stdout.split('\n').filter(Boolean);
    // A branch still checked out elsewhere (a worktree another DEX_HOME holds) stays.
    for (const branch of branches) await execFileAsync('git', ['branch', '-D', branch], { cwd: clone }).catch(() => undefined);
  }
}

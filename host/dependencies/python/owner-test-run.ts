import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { readText } from '../ecosystem-plan';
import { commandWords, logicalLines, toxCommands, type CommandWords } from './tox-commands';

/** A test run the owner's own files spell out: pytest or unittest, and the arguments they give it. */
interface OwnerTestRun {
  runner: 'pytest' | 'unittest';
  args: string[];
  /** Where it was read: `tox.ini`, `.github/workflows/ci.yml`. */
  from: string;
}

/** Programs that run another in the project's environment: `uv run pytest`, `poetry run python -m pytest`. */
const RUNNERS = ['uv', 'poetry', 'pdm', 'pipenv', 'hatch'];
const PYTHON = /^(\S*\/)?python(\d+(\.\d+)?)?$/;
/** Python's own options that take a value (`python -W error -m pytest`). */
const PYTHON_VALUE_OPTIONS = ['-W', '-X'];

/** The test run `words` start, after `python [options] -m MODULE`: pytest, unittest, or coverage's `run … -m` of either. */
function moduleRun(module: string | undefined, rest: string[]): Omit<OwnerTestRun, 'from'> | undefined {
  if (module === 'pytest' || module === 'py.test') return { runner: 'pytest', args: rest };
  if (module === 'unittest') return { runner: 'unittest', args: rest };
  if (module === 'coverage' && rest[0] === 'run') {
    const m = rest.indexOf('-m');
    return m > 0 ? moduleRun(rest[m + 1], rest.slice(m + 2)) : undefined;
  }
  return undefined;
}

/** The pytest or unittest run of one command, or undefined when it runs something else. */
function testRunOf(words: CommandWords): Omit<OwnerTestRun, 'from'> | undefined {
  let i = 0;
  while (/^[A-Za-z_]\w*=/.test(words[i] ?? '')) i++; // PYTHON_GIL=0 pytest
  if (RUNNERS.includes(words[i]) && words[i + 1] === 'run') {
    // The runner's own options come first; the program is the first word that is one.
    i += 2;
    while (i < words.length && !/^(\S*\/)?(pytest|py\.test|coverage)$/.test(words[i]) && !PYTHON.test(words[i])) i++;
  }
  const program = (words[i] ?? '').replace(/^\S*\//, '');
  const rest = words.slice(i + 1);
  if (program === 'pytest' || program === 'py.test') return { runner: 'pytest', args: rest };
  if (program === 'coverage') return moduleRun('coverage', rest);
  if (!PYTHON.test(words[i] ?? '')) return undefined;
  let j = 0;
  while (j < rest.length && rest[j] !== '-m' && rest[j].startsWith('-')) j += PYTHON_VALUE_OPTIONS.includes(rest[j]) ? 2 : 1;
  return rest[j] === '-m' ? moduleRun(rest[j + 1], rest.slice(j + 2)) : undefined;
}

/** The `run:` scripts of a GitHub Actions workflow's steps that run in the repository's root. */
function workflowScripts(text: string): string[] {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    return [];
  }
  const jobs = Object.values(((doc as { jobs?: Record<string, unknown> } | null)?.jobs ?? {}) as Record<string, { steps?: unknown }>);
  const steps = jobs.flatMap((job) => (Array.isArray(job?.steps) ? (job.steps as Record<string, unknown>[]) : []));
  return steps.filter((step) => typeof step?.run === 'string' && [undefined, '.', './'].includes(step['working-directory'] as string | undefined)).map((step) => step.run as string);
}

/**
 * The test step of the project's CI (`.github/workflows/*.yml`): the first `run:` line that runs
 * pytest or unittest, its words with GitHub's and the shell's variables left out. A script that
 * changes folder (`cd docs`) is read only up to there.
 */
function workflowRun(dir: string): OwnerTestRun | undefined {
  const folder = join(dir, '.github', 'workflows');
  let files: string[];
  try {
    files = readdirSync(folder).filter((name) => /\.ya?ml$/.test(name)).sort();
  } catch {
    return undefined;
  }
  for (const file of files) {
    for (const script of workflowScripts(readText(join(folder, file)) ?? '')) {
      for (const line of logicalLines(script)) {
        if (/^cd\s/.test(line) || /(^|&&|;)\s*cd\s/.test(line)) break;
        const run = testRunOf(commandWords(line.replace(/\$\{\{.*?\}\}/g, '')).filter((word) => !word.includes('$')));
        if (run) return { ...run, from: `.github/workflows/${file}` };
      }
    }
  }
  return undefined;
}

/**
 * How the owner runs the project's tests, where their files say so: tox's test environments'
 * `commands` first, then the CI workflow's test step (docs/real-repositories.md#verify-without-configuration).
 */
export function ownerTestRun(dir: string): OwnerTestRun | undefined {
  for (const words of toxCommands(dir)) {
    const run = testRunOf(words);
    if (run) return { ...run, from: 'tox' };
  }
  return workflowRun(dir);
}

import { join } from 'node:path';
import { existsSync, readdirSync } from 'node:fs';

/**
 * pytest options a plugin adds, by option: the plugin's module and whether the option takes the
 * next word as its value. Where the venv lacks the plugin, pytest would stop at the option.
 */
const PLUGIN_OPTIONS: Record<string, [module: string, takesValue: boolean]> = {
  '--cov': ['pytest_cov', false],
  '--cov-report': ['pytest_cov', true],
  '--cov-config': ['pytest_cov', true],
  '--cov-fail-under': ['pytest_cov', true],
  '--cov-context': ['pytest_cov', true],
  '--cov-branch': ['pytest_cov', false],
  '--cov-append': ['pytest_cov', false],
  '--no-cov': ['pytest_cov', false],
  '--no-cov-on-fail': ['pytest_cov', false],
  '-n': ['xdist', true],
  '--numprocesses': ['xdist', true],
  '--maxprocesses': ['xdist', true],
  '--dist': ['xdist', true],
  '--timeout': ['pytest_timeout', true],
};
/** Options that only say how much to print, or write a report for CI: verify prints little and writes nothing of its own. */
const LEFT_OUT: Record<string, boolean> = { '-v': false, '-vv': false, '-vvv': false, '--verbose': false, '-q': false, '-qq': false, '--quiet': false, '--junitxml': true, '--junit-xml': true };

/** The modules and packages installed in the worktree's venv. */
function venvModules(dir: string): Set<string> {
  const lib = join(dir, '.venv', 'lib');
  const versions = existsSync(lib) ? readdirSync(lib).filter((name) => name.startsWith('python')) : [];
  return new Set(versions.flatMap((v) => readdirSync(join(lib, v, 'site-packages'), { withFileTypes: true }).map((e) => e.name.replace(/\.py$/, ''))));
}

/**
 * The owner's pytest arguments as verify runs them: `-q` for how much it prints, CI's report files
 * left out, and a plugin's options left out where the venv has not that plugin (an owner's
 * `--cov` runs where setup installed pytest-cov).
 */
export function pytestArgs(dir: string, args: string[]): string[] {
  const installed = venvModules(dir);
  const out = ['-q'];
  for (let i = 0; i < args.length; i++) {
    const [name, value] = args[i].split(/=(.*)/s);
    const xdistShort = /^-n(\d+|auto|logical)$/.test(args[i]);
    const plugin = xdistShort ? (['xdist', false] as const) : PLUGIN_OPTIONS[name];
    const drop = name in LEFT_OUT ? LEFT_OUT[name] : plugin && !installed.has(plugin[0]) ? plugin[1] : undefined;
    if (drop === undefined) out.push(args[i]);
    // An option written `--opt value` takes the next word with it.
    else if (drop && value === undefined) i++;
  }
  return out;
}

/** The owner's unittest arguments without those that only make it print more. */
export const unittestArgs = (args: string[]): string[] => args.filter((arg) => !['-v', '--verbose'].includes(arg));

/** `word` as one shell word: quoted unless it is plain. */
export const shellWord = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

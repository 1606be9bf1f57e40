import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DependencyCache } from '../../../../host/dependencies/dependency-cache';
import { dependenciesChanged, prepareDependencies } from '../../../../host/dependencies/prepare-dependencies';
import { SetupFailed } from '../../../../host/dependencies/setup-failed';
import { detectTestCommands } from '../../../../host/dependencies/test-command';
import { runAgentCommand } from '../../../../host/sandbox/run-agent-command';
import { commitProject, writeFiles } from '../../../support/projects/real-projects';
import { configureProject, makeCheckProject, mesonProject, missingLibraryProject } from '../../../support/projects/real-projects-native';

const root = mkdtempSync(join(tmpdir(), 'dex-native-setup-'));
const caches = { cache: new DependencyCache(join(root, 'cache')), downloads: join(root, 'downloads'), command: { timeoutMs: 300_000 } };

/** A worktree of `repo`, set up as a task's is (in the sandbox, with no network). */
async function setUp(repo: string) {
  const worktree = join(mkdtempSync(join(root, 'wt-')), 'wt');
  execFileSync('git', ['worktree', 'add', '-q', '--detach', worktree], { cwd: repo });
  const outcome = await prepareDependencies({ worktree, ownerDir: repo, ...caches });
  return { worktree, steps: outcome.steps };
}

/** Runs the worktree's detected verify in the sandbox: its commands, whether they all passed, and their output. */
async function verify(worktree: string) {
  const commands = detectTestCommands(worktree);
  let output = '';
  for (const command of commands) {
    const run = await runAgentCommand(command, worktree, undefined, { timeoutMs: 300_000, outputLimitBytes: 256 * 1024 });
    output += run.output;
    if (run.exitCode !== 0) return { commands, passed: false, output };
  }
  return { commands, passed: commands.length > 0, output };
}

describe('C projects set up and tested with no configuration, in the sandbox', () => {
  it('a meson project: configured with its `tests` option on, `meson test` fails on the planted bug and passes once it is fixed', async () => {
    const { repo, fix } = mesonProject();
    const { worktree, steps } = await setUp(repo);
    expect(steps).toMatchObject([{ ecosystem: 'meson', command: 'meson setup .dex/meson-build -Dtests=true', source: 'ran', key: '' }]);
    const broken = await verify(worktree);
    expect(broken.commands).toEqual(['meson test -C .dex/meson-build --print-errorlogs']);
    expect(broken.output).toMatch(/words_test\s+FAIL/);
    expect(broken.output).toContain('check failed: count_words("") == 0');
    writeFiles(worktree, { [fix.path]: execFileSync('git', ['show', `HEAD:${fix.path}`], { cwd: repo, encoding: 'utf8' }).replace(fix.old_string, fix.new_string) });
    expect((await verify(worktree)).passed).toBe(true);
    // The build folder is scratch, not a change of the project's dependencies.
    expect(dependenciesChanged(worktree)).toBe(false);
  });

  it('a Makefile with a `check` target: nothing to set up, `make check` is verify', async () => {
    const { repo } = makeCheckProject();
    const { worktree, steps } = await setUp(repo);
    expect(steps).toEqual([]);
    const result = await verify(worktree);
    expect(result.commands).toEqual(['make check']);
    expect(result.output).toContain('check failed: count_words("") == 0');
    expect(result.passed).toBe(false);
  });

  it('a `configure` script: run in .dex/configure-build at setup, and `make check` of the Makefile it wrote there', async () => {
    const { repo } = configureProject();
    const { worktree, steps } = await setUp(repo);
    expect(steps).toMatchObject([{ ecosystem: 'configure', source: 'ran' }]);
    expect(existsSync(join(worktree, '.dex/configure-build/Makefile'))).toBe(true);
    const result = await verify(worktree);
    expect(result.commands).toEqual(['make -C .dex/configure-build && make -C .dex/configure-build check']);
    expect(result.output).toContain('check failed: count_words("") == 0');
    // Nothing of the build is in the source tree.
    expect(execFileSync('git', ['status', '--porcelain', '--untracked-files=all', '--', ':!.dex'], { cwd: worktree, encoding: 'utf8' })).toBe('');
  });

  it('a CMake project whose library the machine lacks fails setup with one line naming it', async () => {
    const failure = await setUp(missingLibraryProject()).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(SetupFailed);
    expect((failure as SetupFailed).message).toMatch(
      /^setup failed: cmake `cmake -S \. -B \.dex\/cmake-build( -G Ninja)? -DBUILD_TESTING=ON` exited 1 \(network only to nothing\): CMakeLists\.txt:3 \(find_package\): By not providing "FindSomethingMissing\.cmake" .*"SomethingMissing", but CMake did not find one\.$/,
    );
  });

  it('a CMake project that registers no test has no test command', async () => {
    const repo = commitProject('no-tests', { 'CMakeLists.txt': 'cmake_minimum_required(VERSION 3.16)\nproject(p C)\nadd_library(p p.c)\n', 'p.c': 'int p(void) { return 1; }\n' });
    const { worktree, steps } = await setUp(repo);
    expect(steps).toMatchObject([{ ecosystem: 'cmake', source: 'ran' }]);
    expect(detectTestCommands(worktree)).toEqual([]);
  });
});

import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDexConfig } from '../../../client/config/config-file';
import type { TaskInput, TaskResult } from '../../../core/task/task-types';
import { completionTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { fileAt } from '../../support/env/dev-server-env';
import { fixTurns, type RealProject } from '../../support/projects/real-projects';
import { cmakeProject } from '../../support/projects/real-projects-native';

const FIX = { path: 'src/words.c', old_string: 'return words + 1;', new_string: 'return words;' };
/** The project's files, all a commit of its task may hold. */
const FILES = ['CMakeLists.txt', 'include/words.h', 'src/words.c', 'tests/words_test.c'];
const CTEST = 'cmake --build .dex/cmake-build && ctest --test-dir .dex/cmake-build --output-on-failure --no-tests=error';

// Each task first says it is done without a change: the detected verify (ctest) fails on the planted bug, then the fix passes it.
const CASSETTE = ['C-cmake', 'C-cmake-again'].flatMap((task) => [completionTurn(task, { status: 'complete', summary: 'done?' }), ...fixTurns(task, FIX)]);

const dex = useDexEnvironment({ server: 'dev', cassette: CASSETTE, queue: 'dex-it-c' });

/** The paths the commit `sha` of `repo` holds. */
const filesAt = (repo: string, sha: string) => execFileSync('git', ['ls-tree', '-r', '--name-only', sha], { cwd: repo, encoding: 'utf8' }).split('\n').filter(Boolean);

/** The task input `dex task` makes for `repo`: no `verify:` in a config, so the host picks it after setup. */
function detected(repo: string): Partial<TaskInput> {
  const config = loadDexConfig(repo);
  expect(config).toMatchObject({ verify: [], detectVerify: true });
  return { repoPath: repo, verify: config.verify, detectVerify: config.detectVerify, maxRetries: 0 };
}

/** What the agent was told after its first claim: the verify failure fed back in its second request. */
const feedbackOf = (task: string) => JSON.stringify(dex.requestsFor(task)[1]?.body?.messages ?? []);

describe('a C library built with CMake and tested with ctest, with no configuration', () => {
  let project: RealProject;
  beforeAll(() => {
    project = cmakeProject();
  });

  it('setup configures it with its test option on, the detected ctest fails on the bug and passes on the fix, the commit holds no build folder', async () => {
    const { handle } = await dex.startTask('C-cmake', detected(project.repo));
    const result = (await handle.result()) as TaskResult;
    expect(result.state, result.error).toBe('completed');
    expect(result.verifyPassed).toBe(true);
    expect(result.verifyDetected).toBe(`${CTEST} (detected)`);
    // Nothing is downloaded, so nothing is cached: the configure ran.
    expect(result.setup).toMatch(/^cmake ran \d+\.\d s$/);
    // ctest's failed test and the check that failed, as the agent read them.
    const feedback = feedbackOf('C-cmake');
    expect(feedback).toContain('words_test');
    expect(feedback).toContain('check failed: count_words(\\"\\") == 0');
    expect(fileAt(project.repo, result.commit!, 'src/words.c')).toContain('  return words;\n');
    // The project ignores nothing: .dex/cmake-build stays out of the commit because dex keeps it out.
    expect(filesAt(project.repo, result.commit!)).toEqual(FILES);
  });

  it('a second task on the same CMakeLists.txt configures again (there is nothing to restore) and verifies the same way', async () => {
    const { handle } = await dex.startTask('C-cmake-again', detected(project.repo));
    const result = (await handle.result()) as TaskResult;
    expect(result.state, result.error).toBe('completed');
    expect(result.verifyPassed).toBe(true);
    expect(result.setup).toMatch(/^cmake ran \d+\.\d s$/);
    expect(result.verifyDetected).toBe(`${CTEST} (detected)`);
    expect(filesAt(project.repo, result.commit!)).toEqual(FILES);
  });
});

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RoadmapResult } from '../../../core/roadmap/roadmap-types';
import type { RunStatus } from '../../../core/run/run-types';
import type { TaskResult } from '../../../core/task/task-types';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { fileAt } from '../../support/env/dev-server-env';
import { fixTurns, npmProject, pythonProject, typescriptProject, type RealProject } from '../../support/projects/real-projects';
import { startRoadmap } from '../../support/plans/roadmap-fixture';
import { runDex } from '../../support/env/dex-cli';

const write = (task: string, path: string, content: string) => [
  toolTurn(task, ['write_file', { path, content }]),
  completionTurn(task, { status: 'complete', summary: `wrote ${path}` }),
];

const NPM_FIX = { path: 'src/duration.js', old_string: 'ms(text) + 1', new_string: 'ms(text)' };
const PY_FIX = { path: 'money.py', old_string: 'self.cents - other.cents', new_string: 'self.cents + other.cents' };
const TS_FIX = { path: 'src/slug.ts', old_string: "title.trim().replace(/\\s+/g, '-')", new_string: "title.trim().toLowerCase().replace(/\\s+/g, '-')" };

const SECONDS_TEST =
  "const { test } = require('uvu');\nconst assert = require('uvu/assert');\nconst { seconds } = require('../src/seconds');\n\ntest('seconds', () => {\n  assert.is(seconds('1m'), 60);\n});\n\ntest.run();\n";

const CASSETTE = [
  ...fixTurns('R-npm', NPM_FIX),
  ...fixTurns('R-py', PY_FIX),
  ...fixTurns('R-ts', TS_FIX),
  // `dex task "Fix toMs" --llm record:FILE`, as a person records a run to replay as a test.
  ...fixTurns('fix-toms', NPM_FIX),
  ...fixTurns('T1', NPM_FIX),
  ...write('T2', 'src/seconds.js', "const ms = require('ms');\n\nexports.seconds = (text) => ms(text) / 1000;\n"),
  ...write('T3', 'test/seconds.test.js', SECONDS_TEST),
];

const dex = useDexEnvironment({ server: 'dev', cassette: CASSETTE, queue: 'dex-it-real' });

/** The status query of a finished run. */
const statusOf = async (workflowId: string) => (await dex.client.workflow.getHandle(workflowId).query('status')) as RunStatus & { setup?: string };

describe('real repositories: dependencies from the registries, the project\'s own test command, sandboxed', () => {
  let npm: RealProject, python: RealProject, typescript: RealProject;
  beforeAll(() => {
    npm = npmProject();
    python = pythonProject();
    typescript = typescriptProject();
  });

  it('an npm project whose test runner is a devDependency: setup installs it, verify runs `npm test`, the fix lands', async () => {
    const { handle } = await dex.startTask('R-npm', { repoPath: npm.repo, verify: ['npm test'] });
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    expect(result.verifyPassed).toBe(true);
    expect(result.setup).toMatch(/^npm installed \d+\.\d s$/);
    expect(fileAt(npm.repo, result.commit!, 'src/duration.js')).toContain('ms(text);');
    // The dependencies were never the task's work.
    expect(execFileSync('git', ['show', '--stat', '--format=', result.commit!], { cwd: npm.repo, encoding: 'utf8' })).not.toContain('node_modules');
    // The setup step is a step of its own in the history, with its summary.
    const history = JSON.stringify(await handle.fetchHistory());
    expect(history).toContain('setupWorktree');
    expect((await statusOf(handle.workflowId)).setup).toBe(result.setup);
    // The owner's checkout was not touched.
    expect(existsSync(join(npm.repo, 'node_modules'))).toBe(false);
  });

  it('a Python project tested with pytest in a virtual environment: `python -m pytest` uses the venv', async () => {
    const { handle } = await dex.startTask('R-py', { repoPath: python.repo, verify: ['python -m pytest -q'] });
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    expect(result.verifyPassed).toBe(true);
    expect(result.setup).toMatch(/^python installed/);
    expect(fileAt(python.repo, result.commit!, 'money.py')).toContain('self.cents + other.cents');
  });

  it('a TypeScript project that builds with tsc before its tests run', async () => {
    const { handle } = await dex.startTask('R-ts', { repoPath: typescript.repo, verify: ['npm test'] });
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    expect(result.verifyPassed).toBe(true);
    expect(fileAt(typescript.repo, result.commit!, 'src/slug.ts')).toContain('toLowerCase()');
    // The build's output stays out of the commit (the project ignores dist/).
    expect(execFileSync('git', ['show', '--stat', '--format=', result.commit!], { cwd: typescript.repo, encoding: 'utf8' })).not.toContain('dist/');
  });

  it('dex replay-test of a run recorded on a real project: the copy it replays in is set up too', async () => {
    const { repo } = npmProject();
    const cassette = join(mkdtempSync(join(tmpdir(), 'dex-record-')), 'fix-toms.cassette.jsonl');
    const live = { ...dex.cliEnv(), ANTHROPIC_BASE_URL: dex.fake.url, ANTHROPIC_API_KEY: 'test-key' };
    const recorded = await runDex(['task', 'Fix toMs', '--repo', repo, '--llm', `record:${cassette}`], { env: live });
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(recorded.stdout).toMatch(/^setup: npm (installed|from cache)/m);
    // The copy has no node_modules of its own: without setup its `npm test` fails and the replay ends differently.
    const replayed = await runDex(['replay-test', cassette, '--json'], { env: dex.cliEnv() });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(JSON.parse(replayed.stdout)).toMatchObject({ same: true, differences: [], replayed: { state: 'completed' } });
  });

  it('a 3-task roadmap with two tasks in parallel: one install, every other worktree from the cache', async () => {
    const repo = npmProject().repo;
    writeFileSync(
      join(repo, 'ROADMAP.md'),
      '# Roadmap\n\n- [ ] T1: Fix toMs in src/duration.js\n- [ ] T2: Add seconds in src/seconds.js\n- [ ] T3: Test seconds (depends: T1, T2)\n',
    );
    writeFileSync(join(repo, 'dex.config.yaml'), 'maxParallel: 2\nmaxRetries: 0\n');
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'add', '-A'], { cwd: repo });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'roadmap'], { cwd: repo });
    const { handle } = await startRoadmap(dex, repo);
    const result = (await handle.result()) as RoadmapResult;
    expect(result.state).toBe('completed');
    expect(result.tasks.map((t) => t.state)).toEqual(['completed', 'completed', 'completed']);
    const setups = Object.fromEntries(
      await Promise.all(result.tasks.map(async (t) => [t.id, ((await dex.client.workflow.getHandle(t.workflowId!).result()) as TaskResult).setup ?? ''])),
    ) as Record<string, string>;
    // T1 and T2 ran at once: each installed, or found the other's install; T3 came after both and restored from the cache.
    expect(setups.T1).toMatch(/^npm (installed|from cache)/);
    expect(setups.T2).toMatch(/^npm (installed|from cache)/);
    expect(setups.T3).toMatch(/^npm from cache/);
    // T3's verify ran the real suite on main with all three landed: seconds() needs ms installed.
    expect(execFileSync('git', ['show', 'main:test/seconds.test.js'], { cwd: repo, encoding: 'utf8' })).toContain("seconds('1m')");
    expect(execFileSync('git', ['show', 'main:src/duration.js'], { cwd: repo, encoding: 'utf8' })).toContain('ms(text);');
  });
});

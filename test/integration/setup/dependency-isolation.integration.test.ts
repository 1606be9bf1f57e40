import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunStatus } from '../../../core/run/run-types';
import type { TaskResult } from '../../../core/task/task-types';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { failureOf, useDexEnvironment, waitForGate } from '../../support/env/dex-environment';
import { fileAt } from '../../support/env/dev-server-env';
import { npmProject, pythonProject, treeHash } from '../../support/projects/real-projects';

const SITE = '.venv/lib/python3*/site-packages';

const CASSETTE = [
  // Writes into its own node_modules, then fixes the bug.
  toolTurn('I-npm', ['run_command', { command: 'echo "// tampered" >> node_modules/ms/index.js && rm node_modules/ms/readme.md && echo new > node_modules/extra.txt' }]),
  toolTurn('I-npm', ['edit_file', { path: 'src/duration.js', old_string: 'ms(text) + 1', new_string: 'ms(text)' }]),
  completionTurn('I-npm', { status: 'complete', summary: 'fixed' }),
  completionTurn('I-npm-next', { status: 'blocked', reason: 'look at my dependencies' }),
  // Writes into its own venv (pip works offline for an uninstall), then fixes the bug.
  // sh expands no pattern in a redirection's target: the file is named first.
  toolTurn('I-py', ['run_command', { command: `f=$(echo ${SITE}/attrs/__init__.py) && echo "# tampered" >> "$f" && .venv/bin/pip uninstall -q -y pytest` }]),
  toolTurn('I-py', ['edit_file', { path: 'money.py', old_string: 'self.cents - other.cents', new_string: 'self.cents + other.cents' }]),
  completionTurn('I-py', { status: 'complete', summary: 'fixed' }),
  completionTurn('I-py-next', { status: 'blocked', reason: 'look at my venv' }),
  // Adds a dependency it cannot install itself (no network): verify's setup does.
  toolTurn('I-add', ['edit_file', { path: 'package.json', old_string: '"ms": "2.1.3"', new_string: '"left-pad": "1.3.0",\n    "ms": "2.1.3"' }]),
  toolTurn('I-add', ['write_file', { path: 'src/pad.js', content: "const leftPad = require('left-pad');\n\nexports.pad = (n) => leftPad(n, 3, '0');\n" }]),
  toolTurn('I-add', [
    'write_file',
    { path: 'test/pad.test.js', content: "const { test } = require('uvu');\nconst assert = require('uvu/assert');\nconst { pad } = require('../src/pad');\n\ntest('pads', () => {\n  assert.is(pad(7), '007');\n});\n\ntest.run();\n" },
  ]),
  completionTurn('I-add', { status: 'complete', summary: 'pad added' }),
  // Breaks a passing project: the baseline must call that failure new.
  toolTurn('I-base', ['edit_file', { path: 'money.py', old_string: 'self.cents + other.cents', new_string: 'self.cents * other.cents' }]),
  completionTurn('I-base', { status: 'complete', summary: 'changed add' }),
];

const dex = useDexEnvironment({ server: 'dev', cassette: CASSETTE, queue: 'dex-it-deps' });

const worktreeOf = (taskId: string) => join(dex.worker.dexHome, 'worktrees', `task-math-${taskId}-1`);
const cacheEntries = () => (existsSync(join(dex.worker.dexHome, 'deps-cache')) ? readdirSync(join(dex.worker.dexHome, 'deps-cache')) : []).filter((name) => !name.startsWith('.'));

describe('dependencies: a task never changes the owner\'s or another task\'s', () => {
  it('a task writing into node_modules leaves the owner\'s and the next task\'s byte-identical', async () => {
    const { repo } = npmProject();
    // The owner installed the dependencies in their checkout, as every Node developer has.
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: repo, stdio: 'pipe', env: { ...process.env, npm_config_cache: mkdtempSync(join(tmpdir(), 'npm-cache-')) } });
    const owner = treeHash(join(repo, 'node_modules'));

    const verify = ['npm test', 'grep -q tampered node_modules/ms/index.js'];
    const first = (await (await dex.startTask('I-npm', { repoPath: repo, verify })).handle.result()) as TaskResult;
    expect(first.state).toBe('completed');
    expect(first.setup).toMatch(/^npm from the owner's checkout/);
    expect(treeHash(join(repo, 'node_modules'))).toBe(owner);

    const { handle } = await dex.startTask('I-npm-next', { repoPath: repo, verify: ['npm test'] });
    await waitForGate(handle, 'blocked');
    expect(((await handle.query('status')) as { setup?: string }).setup).toMatch(/^npm from cache/);
    expect(treeHash(join(worktreeOf('I-npm-next'), 'node_modules'))).toBe(owner);
    await handle.signal('reject', { reason: 'seen' });
    await handle.result().catch(() => undefined);
    expect(treeHash(join(repo, 'node_modules'))).toBe(owner);
  });

  it('a Python task writing into its venv leaves the cached one and the next task\'s identical', async () => {
    const { repo } = pythonProject();
    // The first task's verify checks that its writes happened, in its own venv.
    const tampered = [`grep -q tampered ${SITE}/attrs/__init__.py`, 'test ! -e .venv/bin/pytest', 'python -c "import money"'];
    const first = (await (await dex.startTask('I-py', { repoPath: repo, verify: tampered })).handle.result()) as TaskResult;
    expect(first.state).toBe('completed');
    expect(first.setup).toMatch(/^python installed/);
    const key = cacheEntries().find((k) => existsSync(join(dex.worker.dexHome, 'deps-cache', k, 'tree', '.venv')))!;
    const entry = join(dex.worker.dexHome, 'deps-cache', key, 'tree', '.venv');
    const places = [worktreeOf('I-py'), worktreeOf('I-py-next')];
    const cached = treeHash(entry, places);

    const { handle } = await dex.startTask('I-py-next', { repoPath: repo, verify: ['python -m pytest -q'] });
    await waitForGate(handle, 'blocked');
    expect(((await handle.query('status')) as { setup?: string }).setup).toMatch(/^python from cache/);
    expect(treeHash(join(worktreeOf('I-py-next'), '.venv'), places)).toBe(cached);
    expect(treeHash(entry, places)).toBe(cached);
    // The next task's venv works: its pytest is there, and runs.
    expect(execFileSync(join(worktreeOf('I-py-next'), '.venv', 'bin', 'pytest'), ['--version'], { encoding: 'utf8' })).toContain('pytest 8.3.3');
    await handle.signal('reject', { reason: 'seen' });
    await handle.result().catch(() => undefined);
  });

  it('an agent that adds a dependency to package.json gets it installed before verify, and the cache learns the new key', async () => {
    // A project that does not ignore node_modules: dex still never commits it.
    const { repo } = npmProject({ bug: false, extra: { '.gitignore': '' } });
    const before = cacheEntries();
    const { handle } = await dex.startTask('I-add', { repoPath: repo, verify: ['npm test'] });
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    expect(result.verifyPassed).toBe(true);
    // npm brought the lockfile in line: it is the task's work, committed with it.
    expect(fileAt(repo, result.commit!, 'package-lock.json')).toContain('node_modules/left-pad');
    const committed = execFileSync('git', ['show', '--name-only', '--format=', result.commit!], { cwd: repo, encoding: 'utf8' });
    expect(committed).not.toContain('node_modules');
    expect(committed).toContain('package-lock.json');
    // The cache learned the lockfile with left-pad (the one before may have been there already).
    const learned = cacheEntries().filter((key) => !before.includes(key) && existsSync(join(dex.worker.dexHome, 'deps-cache', key, 'tree', 'node_modules', 'left-pad')));
    expect(learned).toHaveLength(1);
    const [phase] = await dex.worker.deps.store.listPhases(handle.workflowId);
    expect(phase.state).toBe('verified');
  });

  it('the verify baseline of a real project reports a failure the task brings as new, not pre-existing', async () => {
    const { repo } = pythonProject({ bug: false });
    const { handle } = await dex.startTask('I-base', { repoPath: repo, verify: ['python -m pytest -q'], verifyBaseline: true, maxRetries: 0 });
    const failure = await failureOf(handle);
    expect(failure.message).toBeTruthy();
    const status = (await handle.query('status')) as RunStatus & { verify?: { preExisting: string[]; newFailures: string[] } };
    // Without its venv the base would fail too (no pytest), and the task's failure would look pre-existing.
    expect(status.verify?.preExisting).toEqual([]);
    expect(status.verify?.newFailures).toEqual(['python -m pytest -q: test_money.py::test_add']);
  });

  it('setup with no network and nothing cached fails the task before any model call, in one clear line', async () => {
    // Dependencies no other test of this file installs, so nothing is cached for them.
    const { repo } = npmProject({ dependencies: { ms: '2.1.3', 'is-number': '7.0.0' } });
    const { handle } = await dex.startTask('I-offline', { repoPath: repo, verify: ['npm test'], setup: { network: false } });
    const failure = await failureOf(handle);
    const [firstLine] = failure.message.split('\n');
    expect(firstLine).toMatch(/^setup failed: npm `npm ci --no-audit --no-fund` exited 1 with no network allowed \(setup\.network: false\) and nothing cached for these lockfiles: /);
    expect(dex.requestsFor('I-offline')).toHaveLength(0);
    const result = failure.details?.[0] as TaskResult;
    expect(result.state).toBe('failed');
    expect(result.turns).toBe(0);
    expect(readFileSync(join(repo, 'package.json'), 'utf8')).toContain('"ms"');
  });
});

import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunStatus } from '../../../core/run/run-types';
import type { TaskResult } from '../../../core/task/task-types';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { failureOf, useDexEnvironment } from '../../support/env/dex-environment';
import { fileAt } from '../../support/env/dev-server-env';
import { fixTurns } from '../../support/projects/real-projects';
import { configuredEditableProject, detectedEditableProject, selfNamingProject, srcLayoutProject, uvProject } from '../../support/projects/real-projects-python';

const SHELF_FIX = { path: 'src/shelf/__init__.py', old_string: 'self.pages[:-1]', new_string: 'self.pages' };
const TALLY_FIX = { path: 'src/tally/__init__.py', old_string: 'len(items) + 1', new_string: 'len(items)' };
const HUMANIZE_FIX = { path: 'src/humanize/__init__.py', old_string: 'return ",".join(groups[:-1])', new_string: 'return ",".join(groups)' };

/** A function only the first task's worktree has, and its test: passes only where `ledger` is imported from that worktree. */
const CREDIT = 'def credit(entries, amount):\n    return balance(entries) + amount\n';
const CREDIT_TEST = 'from ledger.core import credit\n\n\ndef test_credit():\n    assert credit([1], 2) == 3\n';

const CASSETTE = [
  ...fixTurns('P-src', SHELF_FIX),
  ...fixTurns('P-uv', TALLY_FIX),
  // Changes nothing: verify must fail on the worktree's planted bug (the release from PyPI has none).
  completionTurn('P-self-unfixed', { status: 'complete', summary: 'nothing to do' }),
  ...fixTurns('P-self', HUMANIZE_FIX),
  ...['P-edit', 'P-det'].flatMap((id) => [
    toolTurn(`${id}-1`, ['edit_file', { path: 'ledger/core.py', old_string: '\n\ndef main():', new_string: `\n\n${CREDIT}\n\ndef main():` }]),
    toolTurn(`${id}-1`, ['write_file', { path: 'tests/test_credit.py', content: CREDIT_TEST }]),
    completionTurn(`${id}-1`, { status: 'complete', summary: 'credit added' }),
    // Plants a bug in its own worktree: only a venv that imports this worktree's ledger sees it.
    toolTurn(`${id}-2`, ['edit_file', { path: 'ledger/core.py', old_string: 'return sum(entries)', new_string: 'return sum(entries[1:])' }]),
    completionTurn(`${id}-2`, { status: 'complete', summary: 'changed balance' }),
  ]),
];

const dex = useDexEnvironment({ server: 'dev', cassette: CASSETTE, queue: 'dex-it-python' });

/** The worktrees a task left (a finished task's is removed; the test removes any that stayed). */
const worktreesOf = (taskId: string) => {
  const dir = join(dex.worker.dexHome, 'worktrees');
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.includes(`-${taskId}-`)).map((name) => join(dir, name)) : [];
};
/** A check verify runs: the package is imported from the worktree verify runs in, and no other place. */
const importedHere = (pkg: string) => `python -c "import ${pkg}, os, sys; sys.exit(0 if ${pkg}.__file__.startswith(os.getcwd() + os.sep) else '${pkg} imported from ' + ${pkg}.__file__)"`;

/** A check verify runs: the venv's installed distribution `dist` is the worktree verify runs in, installed editable (pip's direct_url.json). */
const editableHere = (dist: string) =>
  `python -c "import importlib.metadata as m, json, os, sys; u = json.loads(m.distribution('${dist}').read_text('direct_url.json')); sys.exit(0 if u == {'url': 'file://' + os.getcwd(), 'dir_info': {'editable': True}} else str(u))"`;

describe('Python projects with no setup configured: the worktree\'s own code is what the tests import', () => {
  it('(a) a src-layout package whose pytest is only in a dependency group: installed editable with the group, the fix lands', async () => {
    const { repo } = srcLayoutProject();
    const { handle } = await dex.startTask('P-src', { repoPath: repo, verify: ['python -m pytest -q', importedHere('shelf')] });
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    expect(result.verifyPassed).toBe(true);
    expect(result.setup).toMatch(/^python installed/);
    expect(fileAt(repo, result.commit!, 'src/shelf/__init__.py')).toContain('sum(self.pages)');
  });

  it('(b) a uv project: uv sync installs the project itself (editable) and its dev group', async () => {
    const { repo } = uvProject();
    const { handle } = await dex.startTask('P-uv', { repoPath: repo, verify: ['python -m pytest -q', importedHere('tally')] });
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    expect(result.verifyPassed).toBe(true);
    expect(fileAt(repo, result.commit!, 'src/tally/__init__.py')).toContain('return len(items)\n');
  });

  it('(d) a package named like its PyPI release whose dev extra names itself: verify tests the worktree, never the release', async () => {
    const { repo } = selfNamingProject();
    // Unfixed, the checkout's bug fails verify (the base's, so pre-existing): with humanize 4.9.0 from PyPI in the venv it would pass.
    const unfixed = await dex.startTask('P-self-unfixed', { repoPath: repo, verify: ['python -m pytest -q'], verifyBaseline: true, maxRetries: 0 });
    await unfixed.handle.result().catch(() => undefined);
    const status = (await unfixed.handle.query('status')) as RunStatus & { verify?: { preExisting: string[]; newFailures: string[] } };
    expect(status.verify).toEqual({ preExisting: ['python -m pytest -q: tests/test_intcomma.py::test_intcomma'], newFailures: [] });
    const { handle } = await dex.startTask('P-self', { repoPath: repo, verify: ['python -m pytest -q', importedHere('humanize'), editableHere('humanize')] });
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    expect(result.verifyPassed).toBe(true);
    expect(result.setup).toMatch(/^python from cache/);
  });
});

const EDITABLE_CASES = [
  { name: 'configured (setup.commands, cache: [.venv])', id: 'P-edit', project: configuredEditableProject, setupWord: 'commands' },
  { name: 'detected (no setup written, pytest in a test extra)', id: 'P-det', project: () => ({ repo: detectedEditableProject(), setup: undefined }), setupWord: 'python' },
];

describe.each(EDITABLE_CASES)('a venv with an editable install, $name, reused by the next task', ({ id, project, setupWord }) => {
  it("each task imports its own worktree's code: never the first task's, nor its removed worktree", async () => {
    const { repo, setup } = project();
    const verify = ['python -m pytest -q', importedHere('ledger'), 'ledger-balance'];
    const first = (await (await dex.startTask(`${id}-1`, { repoPath: repo, verify, setup })).handle.result()) as TaskResult;
    expect(first.state).toBe('completed');
    expect(first.verifyPassed).toBe(true);
    expect(first.setup).toMatch(new RegExp(`^${setupWord} installed`));
    // The worktree the cached venv was made in is gone.
    for (const dir of worktreesOf(`${id}-1`)) rmSync(dir, { recursive: true, force: true });
    expect(worktreesOf(`${id}-1`)).toEqual([]);

    const { handle } = await dex.startTask(`${id}-2`, { repoPath: repo, verify, setup, verifyBaseline: true, maxRetries: 0 });
    const failure = await failureOf(handle);
    expect(failure.message).toBeTruthy();
    const status = (await handle.query('status')) as RunStatus & { setup?: string; verify?: { preExisting: string[]; newFailures: string[] } };
    expect(status.setup).toMatch(new RegExp(`^${setupWord} from cache`));
    // Its own bug fails its own test (no import error), and the baseline checkout, restored from the same cache, passes.
    expect(status.verify?.preExisting).toEqual([]);
    expect(status.verify?.newFailures).toEqual(['python -m pytest -q: tests/test_balance.py::test_balance']);
  });
});

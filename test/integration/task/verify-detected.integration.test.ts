import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDexConfig } from '../../../client/config/config-file';
import { renderTaskResult, taskShapeLines } from '../../../client/render/render-task';
import { transcriptSteps } from '../../../client/render/run-log';
import { setupReportId, workflowKeyPrefix } from '../../../core/run/ids';
import { runDetails } from '../../../workflows/run/run-details';
import type { RunStatus } from '../../../core/run/run-types';
import type { TaskInput, TaskResult } from '../../../core/task/task-types';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { failureOf, useDexEnvironment, waitForGate } from '../../support/env/dex-environment';
import { npmProject } from '../../support/projects/real-projects';
import { pytestProject, pythonWithoutPytest } from '../../support/projects/real-projects-verify';
import { plainGit } from '../../support/env/plain-git';

// Go is left to unit tests (test/host/dependencies/test-command.test.ts, test/core/task/verify-failures.test.ts): its first
// `go test` in a worktree compiles the standard library into an empty GOCACHE, ~50 s here.
// Each task first claims it is done without fixing anything: verify fails on the planted bug,
// which shows the project's own suite ran. Then it fixes the bug and verify passes.
const CASSETTE = [
  completionTurn('V-npm', { status: 'complete', summary: 'done?' }),
  toolTurn('V-npm', ['edit_file', { path: 'src/duration.js', old_string: 'ms(text) + 1', new_string: 'ms(text)' }]),
  completionTurn('V-npm', { status: 'complete', summary: 'fixed' }),
  completionTurn('V-py', { status: 'complete', summary: 'done?' }),
  toolTurn('V-py', ['edit_file', { path: 'ledger.py', old_string: 'sum(amounts) - 1', new_string: 'sum(amounts)' }]),
  completionTurn('V-py', { status: 'complete', summary: 'fixed' }),
  // Without pytest no change helps: the same failure twice, and the runaway gate asks a person.
  completionTurn('V-nopytest', { status: 'complete', summary: 'done?' }),
  completionTurn('V-nopytest', { status: 'complete', summary: 'done now?' }),
  completionTurn('V-turns', { status: 'complete', summary: 'done?' }),
  completionTurn('V-turns', { status: 'complete', summary: 'done now?' }),
  // A project with no test command: the task's change is made, but nothing can test it.
  toolTurn('V-none', ['write_file', { path: 'src/greet.js', content: 'exports.greet = (name) => `hello ${name}`;\n' }]),
  completionTurn('V-none', { status: 'complete', summary: 'added greet' }),
  completionTurn('V-none-reject', { status: 'complete', summary: 'nothing to do' }),
  completionTurn('V-none-on-purpose', { status: 'complete', summary: 'nothing to do' }),
];

const dex = useDexEnvironment({ server: 'dev', cassette: CASSETTE, queue: 'dex-it-verify-detected' });

/** A repository with no test command any ecosystem names: a script and notes, `dex.config.yaml` as given (none by default). */
function untestedRepo(config?: string): string {
  const repo = join(mkdtempSync(join(tmpdir(), 'dex-untested-')), 'greeter');
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(join(repo, 'src', 'app.js'), 'console.log("hi");\n');
  writeFileSync(join(repo, 'NOTES.md'), '# greeter\n');
  if (config !== undefined) writeFileSync(join(repo, 'dex.config.yaml'), config);
  plainGit(repo, 'init', '-q', '-b', 'main');
  plainGit(repo, 'add', '-A');
  plainGit(repo, 'commit', '-qm', 'greeter');
  return repo;
}

/** The task input `dex task` makes for `repo`: the repository's config has no `verify:`, so the host picks it. */
function withoutVerify(repo: string, detect = true): Partial<TaskInput> {
  const config = loadDexConfig(repo);
  expect(config).toMatchObject({ verify: [], detectVerify: detect });
  return { repoPath: repo, verify: config.verify, detectVerify: config.detectVerify, maxRetries: 0, runaway: { sameFailure: 2, noChangeTurns: 8 } };
}

/** The task's verify steps as `dex log` shows them, in order. */
async function verifySteps(workflowId: string) {
  const store = dex.worker.deps.store;
  const steps = [];
  for (const t of await store.listTranscripts(workflowKeyPrefix(workflowId))) steps.push(...(await transcriptSteps(store, t)));
  return steps.flatMap((s) => (s.kind === 'verify' ? [s] : []));
}

/** The head of the task's setup report, what `dex log` shows of it. */
const setupHead = async (workflowId: string) => (await dex.worker.deps.store.getArtifact(setupReportId(workflowId)))?.content.split('\n\n')[0];

describe('verify without configuration', () => {
  it("runs a Node project's test script (npm test) as verify, and says it picked it", async () => {
    const { repo } = npmProject();
    const { handle } = await dex.startTask('V-npm', withoutVerify(repo));
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    expect(result.verifyDetected).toBe('npm test (detected)');
    expect(renderTaskResult(result)).toContain('verify: npm test (detected)');
    const [failed, passed] = await verifySteps(handle.workflowId);
    expect(failed).toMatchObject({ passed: false, commands: ['npm test'] });
    // uvu's failed test and its message, on one line as `dex log` shows it.
    expect(failed.cause).toBe('FAIL "parses seconds" — Expected values to be strictly equal: (is)');
    expect(passed).toMatchObject({ passed: true, commands: ['npm test'] });
    expect(await setupHead(handle.workflowId)).toMatch(/^npm installed .*\nverify: npm test \(detected\)$/);
  });

  it("runs a Python project's pytest suite from its venv", async () => {
    const { repo } = pytestProject();
    const { handle } = await dex.startTask('V-py', withoutVerify(repo));
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    expect(result.verifyDetected).toBe('python -m pytest -q (detected)');
    const [failed, passed] = await verifySteps(handle.workflowId);
    expect(failed).toMatchObject({ passed: false, commands: ['python -m pytest -q'] });
    expect(failed.cause).toMatch(/^FAILED tests\/test_ledger\.py::test_total - assert 2 == 3/);
    expect(passed.passed).toBe(true);
  });

  it('names `No module named pytest` as the cause in the status, the log, the result and at the runaway gate', async () => {
    const repo = pythonWithoutPytest();
    const { handle } = await dex.startTask('V-nopytest', withoutVerify(repo));
    const waiting = await waitForGate(handle, 'runaway');
    expect(waiting.waitingFor?.reason).toBe('the same verify failure 2 times in a row: /usr/bin/python3: No module named pytest');
    const status = (await handle.query('status')) as RunStatus;
    expect(taskShapeLines(status)).toContain('verify: python3 -m pytest -q (detected)');
    // The Web UI's current details: the gate's reason quoted, and which verify dex picked.
    const details = runDetails(status, handle.workflowId);
    expect(details).toContain('> the same verify failure 2 times in a row: /usr/bin/python3: No module named pytest');
    expect(details).toContain('verify: python3 -m pytest -q (detected)');
    expect(status.recent?.map((step) => step.text)).toContain('verify · python3 -m pytest -q (detected)');
    const steps = await verifySteps(handle.workflowId);
    expect(steps.map((s) => s.cause)).toEqual(['/usr/bin/python3: No module named pytest', '/usr/bin/python3: No module named pytest']);
    await handle.signal('reject', { reason: 'needs pytest' });
    const failure = await failureOf(handle);
    expect(failure.message).toBe('rejected: stopped as a runaway: the same verify failure 2 times in a row: /usr/bin/python3: No module named pytest');
    const result = failure.details?.[0] as TaskResult;
    expect(result.verifyCause).toBe('/usr/bin/python3: No module named pytest');
    expect(renderTaskResult(result)).toContain('verify failed: /usr/bin/python3: No module named pytest');
  });

  it("names the cause in the task's one line when the phase runs out of turns", async () => {
    const repo = pythonWithoutPytest();
    const { handle } = await dex.startTask('V-turns', { ...withoutVerify(repo), maxIterations: 2, runaway: { sameFailure: 5, noChangeTurns: 8 } });
    const failure = await failureOf(handle);
    expect(failure.message).toBe('phase implement used all 2 turns without a verified completion: verify failed: /usr/bin/python3: No module named pytest');
  });

  it('with no test command found, says `verify: none found` in every view and waits at the unverified gate before it ends', async () => {
    const { handle } = await dex.startTask('V-none', withoutVerify(untestedRepo()));
    const waiting = await waitForGate(handle, { gate: 'unverified', taskId: 'V-none' });
    expect(waiting.waitingFor?.reason).toMatch(/^verify: none found: no test command ran on this change\. Approve to let it end \(and land\) untested/);
    expect(waiting.verifyDetected).toBe('none found');
    expect(taskShapeLines(waiting)).toContain('verify: none found');
    expect(waiting.recent?.map((step) => step.text)).toContain('verify · none found');
    const details = runDetails(waiting, handle.workflowId);
    expect(details).toContain('verify: none found');
    expect(details).toContain('> verify: none found: no test command ran on this change.');
    // What `dex log` shows under setup.
    expect(await setupHead(handle.workflowId)).toBe('nothing to set up\nverify: none found');
    await handle.executeUpdate('decide', { args: [{ action: 'approve', by: 'ana' }] });
    const result = (await handle.result()) as TaskResult;
    expect(result).toMatchObject({ state: 'completed', verifyDetected: 'none found', unverifiedApprovedBy: 'ana', commit: expect.any(String) });
    expect(renderTaskResult(result)).toContain('verify: none found (nothing tested: ana let it through the unverified gate)');
  });

  it('a reject at the unverified gate ends the task rejected', async () => {
    const { handle } = await dex.startTask('V-none-reject', withoutVerify(untestedRepo()));
    await waitForGate(handle, 'unverified');
    await handle.signal('reject', { reason: 'write a test first' });
    const failure = await failureOf(handle);
    expect(failure.message).toBe('rejected at the unverified gate: write a test first');
    expect((failure.details?.[0] as TaskResult).state).toBe('rejected');
  });

  it('`verify: []` says there are no tests on purpose: no gate, nothing said', async () => {
    const { handle } = await dex.startTask('V-none-on-purpose', withoutVerify(untestedRepo('verify: []\n'), false));
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    expect(result.verifyDetected).toBeUndefined();
  });
});

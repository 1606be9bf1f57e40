import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderStep, stepKey, stepSettled, transcriptSteps } from '../../../client/render/run-log';
import { renderTaskChanges, taskChanges } from '../../../client/render/task-diff';
import { modelCallKey, phaseAttemptKey, verifyReportId, verifyResultKey, workflowKeyPrefix } from '../../../core/run/ids';
import type { DexStore } from '../../../store/dex-store';
import { openSqliteDexStore } from '../../../store/sqlite/sqlite-dex-store';

/** A store holding one phase attempt of `wf`: a prompt, a tool turn, a completion that failed verify, and the note after it. */
async function storeWithTranscript(wf: string): Promise<{ store: DexStore; transcript: string }> {
  const store = openSqliteDexStore(':memory:');
  const transcript = phaseAttemptKey(wf, 'implement', 1);
  const call = (seq: number, input: number) =>
    ({ callKey: modelCallKey(transcript, seq), workflowId: wf, taskId: 'fix-sum', phase: 'implement', model: 'claude-sonnet-4-6', input, output: 7, cacheRead: 0, cacheWrite: 0, costUsd: 0.001, durationMs: 5 });
  await store.appendMessage(transcript, 0, 'user', [{ type: 'text', text: '# Task fix-sum\n\nMake   sum add.' }]);
  await store.recordModelReply(
    transcript,
    1,
    [
      { type: 'text', text: 'Reading it first.' },
      { type: 'tool_use', id: 'tu1', name: 'read_file', input: { path: 'src/math.js' } },
      { type: 'tool_use', id: 'tu2', name: 'run_command', input: { command: 'node --test' } },
    ],
    call(1, 100),
  );
  await store.putToolResult(transcript, 'tu1', { name: 'read_file', content: 'function sum(a, b) {\n  return a - b;\n}', isError: false });
  await store.appendMessage(transcript, 2, 'user', [{ type: 'tool_result', tool_use_id: 'tu1', content: 'x' }]);
  await store.recordModelReply(transcript, 3, [{ type: 'text', text: '{"status":"complete","summary":"done"}' }], call(3, 200));
  const report = verifyReportId(transcript, 2);
  await store.putArtifact(verifyResultKey(report), 'verify-result', JSON.stringify({ passed: false, artifactId: report, commands: [{ command: 'node --test', exitCode: 1 }], tail: 'TAP\nnot ok 1 - sum adds\n' }));
  await store.appendMessage(transcript, 4, 'user', [
    { type: 'text', text: 'Verification failed at command 1 of 1.' },
    { type: 'text', text: 'Verification failed (output above). Fix the cause, then complete again.' },
  ]);
  return { store, transcript };
}

describe("a run's transcripts in the store", () => {
  it("are found by the workflow's key prefix, and only its own (task-1/ is not task-10/)", async () => {
    const { store, transcript } = await storeWithTranscript('task-math-fix-1');
    await storeWithTranscript('x'); // another store: nothing shared
    await store.appendMessage(phaseAttemptKey('task-math-fix-10', 'implement', 1), 0, 'user', 'other');
    await store.appendMessage(phaseAttemptKey('task-math-fix-1', 'test', 1), 0, 'user', 'later');
    expect(await store.listTranscripts(workflowKeyPrefix('task-math-fix-1'))).toEqual([transcript, 'task-math-fix-1/test/1']);
    expect(await store.listTranscripts(workflowKeyPrefix('task-math-fix'))).toEqual([]);
  });

  it('read as steps: the prompt, each turn with its spending, each tool with arguments and result, verify, and what the model was told', async () => {
    const { store, transcript } = await storeWithTranscript('wf');
    const steps = await transcriptSteps(store, transcript);
    expect(steps.map(renderStep)).toEqual([
      '  prompt (31 chars): # Task fix-sum Make sum add.',
      '  turn 1 · claude-sonnet-4-6 · 100 in / 7 out · $0.0010\n    Reading it first.',
      '    read_file {"path":"src/math.js"} → function sum(a, b) { return a - b; }',
      '    run_command {"command":"node --test"} → (running)',
      '  turn 2 · claude-sonnet-4-6 · 200 in / 7 out · $0.0010\n    {"status":"complete","summary":"done"}',
      '    verify failed: node --test · not ok 1 - sum adds',
      '    → told: Verification failed (output above). Fix the cause, then complete again.',
    ]);
    // While following, a tool is shown once its result is there.
    const running = steps.find((s) => s.kind === 'tool' && s.name === 'run_command')!;
    expect(stepSettled(running)).toBe(false);
    expect(stepKey(transcript, running)).toBe('wf/implement/1#1:tool:tu2');
  });

  it("say what made a verify fail, not its output's last line", async () => {
    const store = openSqliteDexStore(':memory:');
    const transcript = phaseAttemptKey('wf', 'implement', 1);
    await store.recordModelReply(transcript, 1, [{ type: 'text', text: '{"status":"complete","summary":"done"}' }], { callKey: modelCallKey(transcript, 1), workflowId: 'wf', taskId: 't', phase: 'implement', model: 'claude-sonnet-4-6', input: 1, output: 1, cacheRead: 0, cacheWrite: 0, costUsd: 0, durationMs: 1 });
    const tail = '  stack: |-\n    TestContext.<anonymous> (/wt/t.test.js:3:33)\n# fail 1\n# duration_ms 34.35\n';
    const report = verifyReportId(transcript, 1);
    const stored = { passed: false, artifactId: report, commands: [{ command: 'npm test', exitCode: 1 }], tail, cause: 'not ok 1 - sum adds\nExpected values to be strictly equal:\n-1 !== 3' };
    await store.putArtifact(verifyResultKey(report), 'verify-result', JSON.stringify(stored));
    const [, verify] = await transcriptSteps(store, transcript);
    expect(renderStep(verify)).toBe('    verify failed: npm test · not ok 1 - sum adds — Expected values to be strictly equal: -1 !== 3');
    expect(verify).toMatchObject({ kind: 'verify', tail: '# duration_ms 34.35' });
  });

  it('cuts long arguments and results to one short line', async () => {
    const store = openSqliteDexStore(':memory:');
    await store.appendMessage('t/p/1', 1, 'assistant', [{ type: 'tool_use', id: 'a', name: 'write_file', input: { path: 'x', content: 'y'.repeat(500) } }]);
    await store.putToolResult('t/p/1', 'a', { name: 'write_file', content: 'z\n'.repeat(300), isError: true });
    const [, tool] = (await transcriptSteps(store, 't/p/1')).map(renderStep);
    expect(tool.length).toBeLessThan(280);
    expect(tool).toMatch(/^ {4}write_file \{"path":"x","content":"y+… → error: z z z/);
  });
});

describe('what a task changed', () => {
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' }).trim();

  it('is its branch against its base, and its worktree beyond that, new files included', () => {
    const repo = join(mkdtempSync(join(tmpdir(), 'dex-diff-')), 'math');
    mkdirSync(join(repo, 'src'), { recursive: true });
    writeFileSync(join(repo, 'src', 'math.js'), 'return a - b;\n');
    git(repo, 'init', '-q');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'start');
    const base = git(repo, 'rev-parse', 'HEAD');
    const worktree = join(repo, '..', 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'dex/t-1', worktree);
    writeFileSync(join(worktree, 'src', 'math.js'), 'return a + b;\n');
    git(worktree, 'commit', '-q', '-am', 'checkpoint');
    writeFileSync(join(worktree, 'src', 'math.js'), 'return a * b;\n');
    writeFileSync(join(worktree, 'NOTES.md'), 'new\n');

    const changes = taskChanges({ repoPath: repo, branch: 'dex/t-1', baseSha: base, worktreePath: worktree });
    expect(changes.committed).toMatch(/-return a - b;\n\+return a \+ b;/);
    expect(changes.uncommitted).toMatch(/-return a \+ b;\n\+return a \* b;/);
    expect(changes.uncommitted).toMatch(/new file mode[\s\S]*\+\+\+ b\/NOTES\.md\n@@ -0,0 \+1 @@\n\+new/);
    const text = renderTaskChanges('task-math-t-1', changes);
    expect(text).toContain(`# task-math-t-1: dex/t-1 against ${base.slice(0, 10)} in ${repo}`);
    expect(text).toContain(`# uncommitted in ${worktree}`);

    // A branch that is gone is read at the task's commit; a worktree that is gone is left out.
    const commit = git(repo, 'rev-parse', 'dex/t-1');
    const gone = taskChanges({ repoPath: repo, branch: 'dex/deleted', baseSha: base, commit, worktreePath: join(repo, 'no-such-worktree') });
    expect(gone.committed).toMatch(/\+return a \+ b;/);
    expect(gone.uncommitted).toBeUndefined();
  });
});

// docs/claude-code.md: a phase worked by a Claude Code session, confined, its messages in the store.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderStep, transcriptSteps } from '../../../client/render/run-log';
import { FAILURE } from '../../../core/run/failure-types';
import { statusQuery } from '../../../core/run/definitions';
import type { TaskResult } from '../../../core/task/task-types';
import { completionTurn, toJsonl, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment, waitForGate } from '../../support/env/dex-environment';
import { commitsOnBranch, fileAt } from '../../support/env/dev-server-env';

const FIX = 'T-cc-fix';
const LOOK = 'T-cc-look';
const GUARDED = 'T-cc-guarded';
const SPENDER = 'T-cc-spender';
const OVERLOADED = 'T-cc-overloaded';
// The worktrees' paths are known up front, for the tools that take an absolute path.
const dexHome = mkdtempSync(join(tmpdir(), 'dex-claude-home-'));
const worktreeOf = (task: string) => join(dexHome, 'worktrees', `task-math-${task}-1`);
const PIPELINE = { file_path: join(worktreeOf(GUARDED), 'ci', 'pipeline.yml'), content: 'test: node --test\n' };

/** Claude Code's own tool names: its Bash tool runs a command in the worktree. */
const bash = (task: string, command: string) => toolTurn(task, ['Bash', { command, description: 'step' }]);

const CASSETTE = [
  bash(FIX, "sed -i 's/return a - b;/return a + b;/' src/math.js"),
  completionTurn(FIX, { status: 'complete', summary: 'sum adds now' }),
  bash(LOOK, [
    // Every process of the session: Claude Code itself and this shell.
    'for p in /proc/[0-9]*; do tr "\\0" "\\n" < $p/environ; done 2>/dev/null | grep -i -e key -e token | sort -u',
    'echo ---; ls -a ~ /root 2>&1',
    'echo ---; (echo x > /usr/dex-probe) 2>&1 || echo refused-usr; echo x > ../outside.txt; echo x > /tmp/dex-claude-escape-probe',
    'echo ---; cat /etc/passwd',
  ].join('; ')),
  completionTurn(LOOK, { status: 'complete', summary: 'looked around' }),
  // Asked to write a protected path: stopped until a person allows it; then the same write goes through.
  toolTurn(GUARDED, ['Write', PIPELINE]),
  toolTurn(GUARDED, ['Write', PIPELINE]),
  completionTurn(GUARDED, { status: 'complete', summary: 'added the pipeline' }),
  bash(OVERLOADED, "sed -i 's/return a - b;/return a + b;/' src/math.js"),
  completionTurn(OVERLOADED, { status: 'complete', summary: 'sum adds now' }),
  bash(SPENDER, 'echo one'),
  bash(SPENDER, 'echo two'),
  completionTurn(SPENDER, { status: 'complete', summary: 'never reached' }),
];

const dex = useDexEnvironment({ server: 'dev', cassette: CASSETTE, queue: 'dex-it-claude', dexHome });

describe('a phase with agent claude-code', () => {
  it('fixes the bug in a sandboxed Claude Code session: verify passes, one commit, its transcript in the store', async () => {
    const { repo, handle } = await dex.startTask(FIX, { agents: { default: 'claude-code' } });
    const result = (await handle.result()) as TaskResult;

    expect(result.state).toBe('completed');
    expect(commitsOnBranch(repo, result.branch)).toHaveLength(1);
    expect(fileAt(repo, result.branch, 'src/math.js')).toContain('return a + b;');
    const requests = dex.requestsFor(FIX);
    expect(requests).toHaveLength(2);
    // The relay adds the worker's key on the way out; the session held a placeholder.
    expect(requests.every((r) => r.headers['x-api-key'] === 'test-key' && r.headers['x-dex-phase'] === 'implement')).toBe(true);
    // The second request carries the first answer and the command's result: one session, not two.
    expect(JSON.stringify(requests[1].body?.messages)).toContain('toolu_test_');
    expect(result.costUsd).toBeGreaterThan(0);
    // The session's steps reached the run's status as they happened (the sessionStep signal).
    const status = await handle.query(statusQuery);
    expect((status.recent ?? []).map((r) => r.text)).toContain("implement claude-code Bash sed -i 's/return a - b;/return a + b;/' src/math.js");

    const store = dex.worker.deps.store;
    const [transcript] = await store.listTranscripts(handle.workflowId);
    const messages = await store.listMessages(transcript);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(JSON.stringify(messages[1].content)).toContain('sed -i');
    const calls = await store.listModelCalls(handle.workflowId);
    expect(calls).toHaveLength(2);
    // `dex log` reads the session as it reads dex's own turns.
    const log = (await transcriptSteps(store, transcript)).map(renderStep).join('\n');
    expect(log).toMatch(/turn 1 · claude-sonnet-4-6 · \d+ in \/ \d+ out/);
    expect(log).toContain(`Bash {"command":"sed -i`);
    expect(log).toContain('(Bash completed with no output)');
  }, 120_000);

  it('keeps the session away from the key, the host home and everything outside the worktree', async () => {
    rmSync('/tmp/dex-claude-escape-probe', { force: true });
    const { repo, handle } = await dex.startTask(LOOK, { agents: { default: 'claude-code' }, verify: [] });
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    const store = dex.worker.deps.store;
    const [transcript] = await store.listTranscripts(handle.workflowId);
    const toolUse = ((await store.listMessages(transcript))[1].content as { id: string }[])[0];
    const output = (await store.getToolResult(transcript, toolUse.id))?.content ?? '';
    expect(output).toContain('ANTHROPIC_API_KEY=dex-placeholder-the-relay-adds-the-key');
    expect(output).not.toContain('test-key');
    expect(output).toMatch(/cannot access '\/root'/);
    expect(output).toContain('/home/dex:');
    // The system is read-only; what the session writes beside the worktree or in /tmp stays in the sandbox's own folders.
    expect(output).toMatch(/dex-probe: Read-only file system\nrefused-usr/);
    expect(existsSync('/tmp/dex-claude-escape-probe')).toBe(false);
    expect(existsSync(join(dirname(repo), 'outside.txt'))).toBe(false);
    expect(output).not.toMatch(/^root:/m);
  }, 120_000);

  it('stops at a gate when the session asks to write a protected path, and writes it once a person allows it', async () => {
    const { repo, handle } = await dex.startTask(GUARDED, { agents: { default: 'claude-code' }, protectedPaths: ['ci/**'], verify: [] });
    dex.recordHistory(handle.workflowId, 'task-workflow-claude-code.json');
    const waiting = await waitForGate(handle, 'protected:implement');
    expect(waiting.waitingFor?.reason).toContain('ci/pipeline.yml');
    expect(dex.requestsFor(GUARDED)).toHaveLength(1);
    expect(existsSync(PIPELINE.file_path)).toBe(false);
    await handle.signal('approve', { note: 'CI may change', by: 'ana' });
    const result = (await handle.result()) as TaskResult;

    expect(result.state).toBe('completed');
    // Allowed once, at the session's gate: the commit did not ask again.
    expect(fileAt(repo, result.branch, 'ci/pipeline.yml')).toBe(PIPELINE.content);
    expect(commitsOnBranch(repo, result.branch)).toHaveLength(1);
    expect(JSON.stringify(dex.requestsFor(GUARDED)[1].body?.messages)).toContain('A person allowed the change to ci/pipeline.yml');
  }, 120_000);

  it('stops the session when its spending passes the budget, waits at the budget gate, and resumes it once a person raises it', async () => {
    const { handle } = await dex.startTask(SPENDER, { agents: { default: 'claude-code' }, budget: { usd: 0.001 }, verify: [] });
    const waiting = await waitForGate(handle, 'budget');
    expect(waiting.state).toBe('budget_exceeded');
    // The first answer cost more than the budget: the session was stopped before it asked again.
    expect(dex.requestsFor(SPENDER)).toHaveLength(1);
    await handle.signal('approve', { budgetUsd: 1, by: 'ana' });
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    const requests = dex.requestsFor(SPENDER);
    expect(requests).toHaveLength(3);
    // The same session went on: the next request carries the first command.
    expect(JSON.stringify(requests[1].body?.messages)).toContain('echo one');
  }, 120_000);

  it('ends the session on an overloaded model and resumes it in the retried activity, under Temporal\'s retry policy', async () => {
    dex.fake.injectFault({ status: 529, match: { task: OVERLOADED } });
    const { handle } = await dex.startTask(OVERLOADED, { agents: { default: 'claude-code' } });
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    // Claude Code did not retry on its own: one 529, then the retried activity's calls.
    expect(dex.requestsFor(OVERLOADED)).toHaveLength(3);
    const { events } = await handle.fetchHistory();
    const retried = (events ?? []).find((e) => (e.activityTaskStartedEventAttributes?.attempt ?? 1) > 1);
    expect(retried?.activityTaskStartedEventAttributes?.lastFailure?.applicationFailureInfo?.type).toBe(FAILURE.ModelOverloaded);
  }, 120_000);

  it('replays a cassette: the relay answers the session from it, an error line ends the session and the retry resumes it', async () => {
    const task = 'T-cc-replay';
    const cassette = join(mkdtempSync(join(tmpdir(), 'dex-claude-cassette-')), 'session.jsonl');
    const lines = [bash(task, "sed -i 's/return a - b;/return a + b;/' src/math.js"), completionTurn(task, { status: 'complete', summary: 'sum adds now' })];
    const overloaded = { task, phase: 'implement', error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } };
    writeFileSync(cassette, `${JSON.stringify(overloaded)}\n${toJsonl(lines)}`);
    const { repo, handle } = await dex.startTask(task, { agents: { default: 'claude-code' }, llm: { kind: 'replay', path: cassette } });
    const result = (await handle.result()) as TaskResult;

    expect(result.state).toBe('completed');
    expect(fileAt(repo, result.branch, 'src/math.js')).toContain('return a + b;');
    expect(dex.requestsFor(task)).toHaveLength(0);
    expect(await dex.worker.deps.store.listModelCalls(handle.workflowId)).toHaveLength(2);
    const { events } = await handle.fetchHistory();
    const retried = (events ?? []).find((e) => (e.activityTaskStartedEventAttributes?.attempt ?? 1) > 1);
    expect(retried?.activityTaskStartedEventAttributes?.lastFailure?.applicationFailureInfo?.type).toBe(FAILURE.ModelOverloaded);
  }, 120_000);
});

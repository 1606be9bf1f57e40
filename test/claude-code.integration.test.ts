// docs/claude-code.md: a phase worked by a Claude Code session, confined, its messages in the store.
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TaskResult } from '../core/task/task-types';
import { completionTurn, toolTurn } from './cassette-builder';
import { useDexEnvironment } from './dex-environment';
import { commitsOnBranch, fileAt } from './dev-server-env';

const FIX = 'T-cc-fix';
const LOOK = 'T-cc-look';

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
];

const dex = useDexEnvironment({ server: 'dev', cassette: CASSETTE, queue: 'dex-it-claude' });

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

    const store = dex.worker.deps.store;
    const [transcript] = await store.listTranscripts(handle.workflowId);
    const messages = await store.listMessages(transcript);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(JSON.stringify(messages[1].content)).toContain('sed -i');
    const calls = await store.listModelCalls(handle.workflowId);
    expect(calls).toHaveLength(2);
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
});

import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolActivities } from '../../../activities/tools/run-tool';
import type { DexStore } from '../../../store/dex-store';
import { openSqliteDexStore } from '../../../store/sqlite/sqlite-dex-store';
import type { ToolCallInput } from '../../../activities/tools/run-tool';
import { mockActivityEnv, runActivity } from '../../support/env/mock-activity';
import { offlineDeps } from '../../support/projects/offline-deps';

describe('runTool', () => {
  let dir: string;
  let worktree: string;
  let store: DexStore;
  let activities: ReturnType<typeof createToolActivities>;

  beforeEach(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'dex-run-tool-')));
    worktree = join(dir, 'wt');
    mkdirSync(worktree);
    store = openSqliteDexStore(join(dir, 'store.db'));
    activities = createToolActivities(offlineDeps(store, dir));
    await store.appendMessage('t1', 0, 'user', [{ type: 'text', text: 'do it' }]);
    await store.appendMessage('t1', 1, 'assistant', [
      { type: 'text', text: 'appending' },
      { type: 'tool_use', id: 'tu_append', name: 'run_command', input: { command: 'echo once >> log.txt; echo appended' } },
      { type: 'tool_use', id: 'tu_read', name: 'read_file', input: { path: 'missing.txt' } },
    ]);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (toolUseId: string, assistantSeq = 1): ToolCallInput => ({
    transcriptId: 't1',
    assistantSeq,
    toolUseId,
    worktreePath: worktree,
    limits: { commandTimeoutMs: 10_000, outputLimitBytes: 4096 },
  });

  it('runs the tool once and stores the full result; a second run returns it without running again', async () => {
    const first = await runActivity(activities.runTool, [call('tu_append')]);
    expect(first).toEqual({ name: 'run_command', isError: false, preview: 'exit code: 0\nappended\n' });
    expect(await store.getToolResult('t1', 'tu_append')).toEqual({ name: 'run_command', content: 'exit code: 0\nappended\n', isError: false });

    const second = await runActivity(activities.runTool, [call('tu_append')], mockActivityEnv({ attempt: 2 }));
    expect(second).toEqual(first);
    expect(readFileSync(join(worktree, 'log.txt'), 'utf8')).toBe('once\n');
  });

  it('stores a tool error as a result for the model, not as a failure', async () => {
    const result = await runActivity(activities.runTool, [call('tu_read')]);
    expect(result).toEqual({ name: 'read_file', isError: true, preview: '"missing.txt" does not exist' });
    expect((await store.getToolResult('t1', 'tu_read'))?.isError).toBe(true);
  });

  it('cuts the preview to 200 characters', async () => {
    await store.appendMessage('t1', 3, 'assistant', [
      { type: 'tool_use', id: 'tu_long', name: 'run_command', input: { command: 'printf "%0300d" 0' } },
    ]);
    const result = await runActivity(activities.runTool, [call('tu_long', 3)]);
    expect(result.preview).toHaveLength(200);
    expect((await store.getToolResult('t1', 'tu_long'))?.content).toHaveLength('exit code: 0\n'.length + 300);
  });

  it('fails non-retryably when the tool_use block does not exist', async () => {
    const failure = await runActivity(activities.runTool, [call('tu_nope')]).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'ToolUseNotFound', nonRetryable: true });
    const wrongSeq = await runActivity(activities.runTool, [call('tu_append', 0)]).catch((e: unknown) => e);
    expect(wrongSeq).toMatchObject({ type: 'ToolUseNotFound' });
  });

  it('fails non-retryably, storing nothing, when the worktree is gone', async () => {
    rmSync(worktree, { recursive: true });
    const failure = await runActivity(activities.runTool, [call('tu_read')]).catch((e: unknown) => e);
    expect(failure).toMatchObject({ type: 'WorktreeMissing', nonRetryable: true });
    expect(await store.getToolResult('t1', 'tu_read')).toBeUndefined();
  });

  it('stops a running command when the activity is cancelled and stores nothing', async () => {
    await store.appendMessage('t1', 5, 'assistant', [
      { type: 'tool_use', id: 'tu_slow', name: 'run_command', input: { command: 'touch started; sleep 30' } },
    ]);
    const env = mockActivityEnv();
    const running = runActivity(activities.runTool, [call('tu_slow', 5)], env);
    await expect.poll(() => existsSync(join(worktree, 'started'))).toBe(true);
    env.cancel();
    await expect(running).rejects.toMatchObject({ name: 'CancelledFailure' });
    expect(await store.getToolResult('t1', 'tu_slow')).toBeUndefined();
  });
});

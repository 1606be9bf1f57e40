import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolActivities } from '../../../activities/tools/run-tool';
import { createTurnToolActivities, type TurnToolsInput } from '../../../activities/tools/run-turn-tools';
import { runReadsOf } from '../../../activities/model/reads-in-turn';
import type { ActivityDeps } from '../../../activities/deps';
import type { DexStore } from '../../../store/dex-store';
import { openSqliteDexStore } from '../../../store/sqlite/sqlite-dex-store';
import { mockActivityEnv, runActivity } from '../../support/env/mock-activity';
import { offlineDeps } from '../../support/projects/offline-deps';

describe('runTurnTools', () => {
  let dir: string;
  let worktree: string;
  let store: DexStore;
  let turnTools: ReturnType<typeof createTurnToolActivities>;
  let oneTool: ReturnType<typeof createToolActivities>;
  let deps: ActivityDeps;

  beforeEach(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'dex-turn-tools-')));
    worktree = join(dir, 'wt');
    mkdirSync(worktree);
    execFileSync('git', ['init', '-q', worktree]);
    store = openSqliteDexStore(join(dir, 'store.db'));
    deps = offlineDeps(store, dir);
    turnTools = createTurnToolActivities(deps);
    oneTool = createToolActivities(deps);
    await store.appendMessage('t1', 0, 'user', [{ type: 'text', text: 'do it' }]);
    await store.appendMessage('t1', 1, 'assistant', [
      { type: 'tool_use', id: 'tu_append', name: 'run_command', input: { command: 'echo once >> log.txt; echo appended' } },
      { type: 'tool_use', id: 'tu_read', name: 'read_file', input: { path: 'log.txt' } },
      { type: 'tool_use', id: 'tu_list', name: 'list_files', input: { path: '.' } },
    ]);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const turn = (toolUseIds: string[]): TurnToolsInput => ({
    transcriptId: 't1',
    assistantSeq: 1,
    toolUseIds,
    worktreePath: worktree,
    limits: { commandTimeoutMs: 10_000, outputLimitBytes: 4096 },
  });

  it('runs the calls in the order the model wrote them, each seeing the one before, and stores every result', async () => {
    const env = mockActivityEnv();
    const heartbeats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => heartbeats.push(d));
    const done = await runActivity(turnTools.runTurnTools, [turn(['tu_append', 'tu_read', 'tu_list'])], env);
    expect(done.results.map((r) => [r.name, r.isError])).toEqual([['run_command', false], ['read_file', false], ['list_files', false]]);
    expect(done.results[1].preview).toContain('once');
    expect(done.fingerprint).toMatch(/\S/);
    for (const id of ['tu_append', 'tu_read', 'tu_list']) expect(await store.getToolResult('t1', id)).toBeDefined();
    expect(heartbeats.filter((h) => typeof h === 'object' && h !== null && 'tool' in h)).toEqual([
      { tool: 1, of: 3 },
      { tool: 2, of: 3 },
      { tool: 3, of: 3 },
    ]);
  });

  it('after a crash mid-turn runs only the calls that had not finished: the command is not run twice', async () => {
    // The first attempt finished the command, then the worker died before the turn's other calls.
    await runActivity(oneTool.runTool, [{ ...turn([]), toolUseId: 'tu_append' }]);
    const retry = await runActivity(turnTools.runTurnTools, [turn(['tu_append', 'tu_read', 'tu_list'])], mockActivityEnv({ attempt: 2 }));
    expect(readFileSync(join(worktree, 'log.txt'), 'utf8')).toBe('once\n');
    expect(retry.results[0]).toEqual({ name: 'run_command', isError: false, preview: 'exit code: 0\nappended\n' });
    expect(await store.getToolResult('t1', 'tu_list')).toBeDefined();
  });

  it('takes no fingerprint after a turn of read-only calls', async () => {
    const done = await runActivity(turnTools.runTurnTools, [turn(['tu_read', 'tu_list'])]);
    expect(done.results.map((r) => r.name)).toEqual(['read_file', 'list_files']);
    expect(done.fingerprint).toBeUndefined();
  });

  describe('a reply that only reads', () => {
    const place = () => ({ worktreePath: worktree, limits: { commandTimeoutMs: 10_000, outputLimitBytes: 4096 } });
    const reads = [{ id: 'tu_read', name: 'read_file' }, { id: 'tu_list', name: 'list_files' }];

    it('has its reads run by its model call, each result stored', async () => {
      const ran = await runActivity(() => runReadsOf(deps, place(), { transcriptId: 't1', seq: 1, toolUses: reads }), []);
      expect(ran).toBe(true);
      expect((await store.getToolResult('t1', 'tu_read'))?.isError).toBe(true); // log.txt does not exist yet: a result for the model
      expect((await store.getToolResult('t1', 'tu_list'))?.name).toBe('list_files');
    });

    it('leaves every call to runTurnTools when any of them is not a quick read, or no place is given', async () => {
      const mixed = [{ id: 'tu_append', name: 'run_command' }, ...reads];
      expect(await runActivity(() => runReadsOf(deps, place(), { transcriptId: 't1', seq: 1, toolUses: mixed }), [])).toBe(false);
      expect(await runActivity(() => runReadsOf(deps, undefined, { transcriptId: 't1', seq: 1, toolUses: reads }), [])).toBe(false);
      for (const id of ['tu_append', 'tu_read', 'tu_list']) expect(await store.getToolResult('t1', id)).toBeUndefined();
    });
  });
});

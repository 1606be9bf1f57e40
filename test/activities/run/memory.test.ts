import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFetchActivities } from '../../../activities/task/fetch-context';
import { createMemoryActivities, rememberTool } from '../../../activities/run/memory';
import { repoKeyOf } from '../../../host/repo-key';
import { createToolActivities } from '../../../activities/tools/run-tool';
import { phaseArtifactId } from '../../../core/run/ids';
import { NOTE_MAX_CHARS, renderProjectMemory, type ProjectNote } from '../../../core/roadmap/project-memory';
import { estimateTokens, renderRunMemory, type RunMemoryEntry } from '../../../core/run/run-memory';
import type { DexStore } from '../../../store/dex-store';
import { openSqliteDexStore } from '../../../store/sqlite/sqlite-dex-store';
import { runDex } from '../../support/env/dex-cli';
import { sampleRepo } from '../../support/env/dev-server-env';
import { runActivity } from '../../support/env/mock-activity';
import { offlineDeps } from '../../support/projects/offline-deps';

const entry = (taskId: string, summary: string): RunMemoryEntry => ({ taskId, title: `Task ${taskId}`, files: [`src/${taskId}.js`], summary, decisions: [], failures: [] });

describe('run memory, rendered', () => {
  it('puts the newest entry first and keeps the whole section within the limit', () => {
    const entries = [entry('T3', 'third '.repeat(20)), entry('T2', 'second '.repeat(20)), entry('T1', 'first '.repeat(20))];
    const all = renderRunMemory(entries, 10_000);
    expect(all.indexOf('T3')).toBeLessThan(all.indexOf('T2'));
    for (const limit of [0, 20, 60, 90, 150, 400]) {
      const text = renderRunMemory(entries, limit);
      expect(estimateTokens(text), `limit ${limit}`).toBeLessThanOrEqual(limit);
    }
    const small = renderRunMemory(entries, 60);
    expect(small).toContain('## T3');
    expect(small).not.toContain('## T1');
  });

  it('shows verify commands first and the newest notes, within the limit', () => {
    const notes: ProjectNote[] = [
      { id: 1, kind: 'verify', text: 'node --test', createdAt: '' },
      { id: 2, kind: 'note', text: 'old note', createdAt: '' },
      { id: 3, kind: 'note', text: 'new note', createdAt: '' },
    ];
    const text = renderProjectMemory(notes, 500);
    expect(text).toMatch(/verify commands that passed here: `node --test`\n- new note\n- old note\n$/);
    expect(estimateTokens(renderProjectMemory(notes, 25))).toBeLessThanOrEqual(25);
    expect(renderProjectMemory([], 500)).toBe('');
  });
});

describe('memory in the store and the first prompt', () => {
  let dir: string;
  let store: DexStore;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'dex-memory-')));
    store = openSqliteDexStore(join(dir, 'dex.db'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('remember keeps a bounded note once, in the store only', async () => {
    expect(await rememberTool(store, dir, { note: 'Tests  run with node --test' })).toEqual({ content: 'kept as note 1', isError: false });
    expect(await rememberTool(store, dir, { note: 'tests run with NODE --test' })).toEqual({ content: 'already kept as note 1', isError: false });
    expect((await rememberTool(store, dir, { note: 'x'.repeat(NOTE_MAX_CHARS + 1) })).isError).toBe(true);
    expect((await rememberTool(store, dir, {})).isError).toBe(true);
    expect((await rememberTool(store, undefined, { note: 'a' })).isError).toBe(true);
    expect((await store.memory.notes(repoKeyOf(dir))).map((n) => n.text)).toEqual(['Tests run with node --test']);
  });

  it("keeps a forge repository's notes under its git URL, not a folder of the worker's working directory (a fleet shares them)", async () => {
    const url = 'https://github.com/octo/demo.git';
    expect(repoKeyOf(url)).toBe(url);
    await rememberTool(store, url, { note: 'CI runs node --test' });
    expect((await store.memory.notes(url)).map((n) => n.text)).toEqual(['CI runs node --test']);
  });

  it('runTool answers remember without a worktree and keeps its result', async () => {
    await store.appendMessage('tr', 1, 'assistant', [{ type: 'tool_use', id: 'tu1', name: 'remember', input: { note: 'use pnpm' } }]);
    const tools = createToolActivities(offlineDeps(store, dir));
    const input = { transcriptId: 'tr', assistantSeq: 1, toolUseId: 'tu1', worktreePath: join(dir, 'gone'), limits: { commandTimeoutMs: 1000, outputLimitBytes: 1000 }, memoryRepo: dir };
    expect(await runActivity(tools.runTool, [input])).toMatchObject({ name: 'remember', isError: false, preview: 'kept as note 1' });
    expect((await store.getToolResult('tr', 'tu1'))?.content).toBe('kept as note 1');
  });

  it('records a landed task (files of its own commits, summary, decisions, failures) and shows it to the next', async () => {
    const repo = sampleRepo();
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, encoding: 'utf8' }).trim();
    const base = git('rev-parse', 'HEAD');
    git('checkout', '-q', '-b', 'dex/t1');
    execFileSync('sh', ['-c', 'echo x > src/new.js'], { cwd: repo });
    git('add', '-A');
    git('commit', '-q', '-m', 'c');
    const head = git('rev-parse', 'HEAD');
    await store.putArtifact(phaseArtifactId('task-x-T1-1', 'spec'), 'spec', 'Use a map, not a list.');
    await store.appendMessage('task-x-T1-1/implement/2', 0, 'user', [{ type: 'text', text: 'p' }]);
    await store.putArtifact('task-x-T1-1/implement/2/retry-context', 'retry-context', 'The test phase failed: mul(2, 3) expected 6');
    const acts = createMemoryActivities(offlineDeps(store, dir));
    const record = { runKey: 'run-1', taskId: 'T1', title: 'Add new', workflowId: 'task-x-T1-1', repoPath: repo, baseSha: base, head, summary: 'added new.js', verify: ['node --test'], verifyPassed: true };
    expect(await runActivity(acts.recordTaskMemory, [record])).toEqual({ files: 1, stored: true });
    expect(await runActivity(acts.recordTaskMemory, [record])).toEqual({ files: 1, stored: false });

    const fetch = createFetchActivities(offlineDeps(store, dir));
    const memory = { runTokens: 2000, projectTokens: 500, runKey: 'run-1' };
    await runActivity(fetch.fetchContext, [{ transcriptId: 'tr-2', worktreePath: repo, taskId: 'T2', title: 'Next', description: '', verify: [], memory, repoPath: repo }]);
    const text = ((await store.getMessage('tr-2', 0))?.content as { text: string }[])[0].text;
    expect(text).toContain('## T1: Add new\n- files: src/new.js\n- summary: added new.js\n- decision: (spec) Use a map, not a list.\n- failed first: The test phase failed');
    expect(text).toContain('verify commands that passed here: `node --test`');
    rmSync(repo, { recursive: true, force: true });
  });
});

describe('dex memory', () => {
  it('lists, adds and forgets notes of a repository in DEX_HOME; bad input exits 2', async () => {
    const home = mkdtempSync(join(tmpdir(), 'dex-memory-home-'));
    const repo = sampleRepo();
    const dex = (...args: string[]) => runDex(['memory', '--repo', repo, ...args], { env: { DEX_HOME: home } });
    expect((await dex()).stdout).toContain('nothing remembered');
    expect((await dex('--add', 'prefer small commits')).stdout).toContain('kept as note 1');
    expect((await dex('--add', 'Prefer  small commits')).stdout).toContain('already kept as note 1');
    const listed = JSON.parse((await dex('--json')).stdout) as { notes: ProjectNote[] };
    expect(listed.notes.map((n) => [n.id, n.text])).toEqual([[1, 'prefer small commits']]);
    expect((await dex('--forget', 'x')).code).toBe(2);
    expect((await dex('--forget', '9')).code).toBe(2);
    expect((await dex('--add', '   ')).code).toBe(2);
    expect((await dex('--forget', '1')).stdout).toContain('forgot note 1');
    expect((await dex()).stdout).toContain('nothing remembered');
    rmSync(home, { recursive: true, force: true });
  });
});

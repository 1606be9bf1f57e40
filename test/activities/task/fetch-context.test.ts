import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NAMED_FILES_LIMIT_CHARS, createFetchActivities, pathCandidates, type FetchContextInput } from '../../../activities/task/fetch-context';
import type { DexStore } from '../../../store/dex-store';
import { openSqliteDexStore } from '../../../store/sqlite/sqlite-dex-store';
import { IMPLEMENT_PROMPT, renderPrompt } from '../../../core/layer/prompt-template';
import { runActivity } from '../../support/env/mock-activity';
import { offlineDeps } from '../../support/projects/offline-deps';

describe('renderPrompt', () => {
  it('fills known variables, empties unknown ones, and does not expand values', () => {
    expect(renderPrompt('a {{X}} b {{Y}} c {{X}}', { X: '{{Y}}' })).toBe('a {{Y}} b  c {{Y}}');
  });

  it('leaves no placeholder of the implement prompt unfilled', () => {
    const names = [...IMPLEMENT_PROMPT.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]);
    expect(new Set(names)).toEqual(
      new Set(['TASK_ID', 'TASK_TITLE', 'TASK_DESCRIPTION', 'PHASE_SECTION', 'FILE_TREE', 'NAMED_FILES', 'MEMORY', 'RETRY_CONTEXT', 'TOOLS_NOTE', 'VERIFY_COMMANDS']),
    );
  });
});

describe('pathCandidates', () => {
  it('finds path-like words, stripped of quotes and punctuation', () => {
    expect(pathCandidates('Add `sum` to src/math.js. See (README.md), and "lib/a.ts": done; e.g. /etc/passwd')).toEqual([
      'src/math.js',
      'README.md',
      'lib/a.ts',
      'e.g',
    ]);
  });
});

describe('fetchContext', () => {
  let dir: string;
  let worktree: string;
  let store: DexStore;
  let activities: ReturnType<typeof createFetchActivities>;

  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'dex-fetch-')));
    worktree = join(dir, 'wt');
    mkdirSync(join(worktree, 'src'), { recursive: true });
    mkdirSync(join(worktree, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(worktree, 'src', 'math.js'), 'module.exports = { add: (a, b) => a + b };\n');
    writeFileSync(join(worktree, 'package.json'), '{"name":"demo"}\n');
    writeFileSync(join(worktree, 'node_modules', 'dep', 'index.js'), '');
    store = openSqliteDexStore(join(dir, 'store.db'));
    activities = createFetchActivities(offlineDeps(store, dir));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const input = (over: Partial<FetchContextInput> = {}): FetchContextInput => ({
    transcriptId: 'tr-1',
    worktreePath: worktree,
    taskId: 'T1',
    title: 'Add a `sum` function to src/math.js',
    description: 'Export it next to add. Do not touch docs/missing.md.',
    verify: ['npm test'],
    ...over,
  });
  const promptOf = async (transcriptId: string): Promise<string> => {
    const message = await store.getMessage(transcriptId, 0);
    expect(message?.role).toBe('user');
    return (message?.content as { type: string; text: string }[])[0].text;
  };

  it('stores the rendered prompt as user message 0 and returns only sizes and names', async () => {
    const result = await runActivity(activities.fetchContext, [input()]);
    const text = await promptOf('tr-1');
    expect(result).toEqual({ promptChars: text.length, fileCount: 2, namedFiles: ['src/math.js'] });
    expect(text).toContain('# Task T1: Add a `sum` function to src/math.js');
    expect(text).toContain('Export it next to add.');
    expect(text).toContain('package.json\nsrc/math.js');
    expect(text).not.toContain('node_modules');
    expect(text).toContain('## src/math.js\n\n```\nmodule.exports = { add: (a, b) => a + b };\n```');
    expect(text).toContain('  - `npm test`');
    expect(text).toContain('{"status":"complete"');
    expect(text).not.toContain('Earlier attempts');
    expect(text).not.toMatch(/\{\{\w+\}\}/);
  });

  it("names the tools of the phase's agent: dex's own, or a Claude Code session's", async () => {
    await runActivity(activities.fetchContext, [input({ transcriptId: 'tr-dex' })]);
    await runActivity(activities.fetchContext, [input({ transcriptId: 'tr-claude', agent: 'claude-code' })]);
    const dex = await promptOf('tr-dex');
    const claude = await promptOf('tr-claude');
    expect(dex).toContain('Use the tools: read_file, write_file, edit_file, list_files and run_command.');
    expect(dex).toContain('`remember` keeps a short note');
    expect(claude).toContain('Work with your own tools (Read, Edit, Write, Bash, …)');
    expect(claude).not.toContain('read_file');
    expect(claude).not.toContain('`remember`');
    expect(claude).toContain('Do not commit');
  });

  it('includes the retry context when there is one', async () => {
    await runActivity(activities.fetchContext, [input({ transcriptId: 'tr-2', retryContext: 'Rejected: use reduce.' })]);
    expect(await promptOf('tr-2')).toContain('# Earlier attempts\n\nRejected: use reduce.');
  });

  it('keeps the first stored prompt when run again', async () => {
    await runActivity(activities.fetchContext, [input({ transcriptId: 'tr-3' })]);
    const first = await promptOf('tr-3');
    writeFileSync(join(worktree, 'src', 'math.js'), 'changed\n');
    await runActivity(activities.fetchContext, [input({ transcriptId: 'tr-3' })]);
    expect(await promptOf('tr-3')).toBe(first);
    expect(await store.listMessages('tr-3')).toHaveLength(1);
  });

  it('caps the named files at 32 KiB in total and skips paths outside the worktree', async () => {
    writeFileSync(join(worktree, 'big-a.txt'), 'a'.repeat(NAMED_FILES_LIMIT_CHARS - 100));
    writeFileSync(join(worktree, 'big-b.txt'), 'b'.repeat(NAMED_FILES_LIMIT_CHARS));
    writeFileSync(join(dir, 'secret.txt'), 'TOP-SECRET-CONTENT');
    const result = await runActivity(activities.fetchContext, [
      input({ transcriptId: 'tr-4', title: 'Merge big-a.txt and big-b.txt', description: 'Leave ../secret.txt alone.' }),
    ]);
    expect(result.namedFiles).toEqual(['big-a.txt', 'big-b.txt']);
    const text = await promptOf('tr-4');
    expect(text).not.toContain('TOP-SECRET-CONTENT');
    expect(text).toContain(`${'b'.repeat(100)}\n… (cut here; read_file shows the rest)`);
    expect(text).not.toContain('b'.repeat(101));
  });
});

import { ApplicationFailure } from '@temporalio/common';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSheetActivities } from '../../../activities/sheet/sheet';
import type { DexStore } from '../../../store/dex-store';
import { openSqliteDexStore } from '../../../store/sqlite/sqlite-dex-store';
import { costOf } from '../../../core/run/pricing';
import { VALUE_LIMIT_CHARS } from '../../../core/sheet/sheet-types';
import { TEST_MODEL } from '../../support/model/cassette-builder';
import { runActivity } from '../../support/env/mock-activity';
import { offlineDeps } from '../../support/projects/offline-deps';

let dir: string;
let store: DexStore;
let acts: ReturnType<typeof createSheetActivities>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'dex-sheet-acts-'));
  store = openSqliteDexStore(join(dir, 'dex.db'));
  acts = createSheetActivities(offlineDeps(store, dir));
});

afterAll(() => store.close());

const reply = (text: string) => ({
  id: 'msg_x',
  type: 'message',
  role: 'assistant',
  model: TEST_MODEL,
  content: [{ type: 'text', text }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 50, output_tokens: 7 },
});

describe('runSheetCommand', () => {
  const run = (key: string, command: string) => runActivity(acts.runSheetCommand, [{ key, command, cwd: dir, timeoutMs: 10_000 }]);

  it('takes trimmed stdout as the value, keeps stderr out of it, and stores the full output', async () => {
    expect(await run('wf/a/do', 'echo "  cbu-1  "; echo warning >&2')).toEqual({ value: 'cbu-1' });
    expect((await store.getArtifact('wf/a/do/output'))?.content).toContain('--- stderr ---\nwarning');
  });

  it('does not run a finished command again when the activity is retried', async () => {
    const count = join(dir, 'count');
    expect(await run('wf/once/do', `echo x >> ${count}; echo once`)).toEqual({ value: 'once' });
    expect(await run('wf/once/do', `echo x >> ${count}; echo once`)).toEqual({ value: 'once' });
    expect(readFileSync(count, 'utf8')).toBe('x\n');
  });

  it('reports a non-zero exit, a timeout and an oversized value as failed outcomes', async () => {
    expect(await run('wf/exit/do', 'echo partial; echo broken pipe >&2; exit 5')).toEqual({ error: { code: 'exit_code', message: 'exit code 5: broken pipe' } });
    const slow = await runActivity(acts.runSheetCommand, [{ key: 'wf/slow/do', command: 'sleep 5', cwd: dir, timeoutMs: 200 }]);
    expect(slow.error?.code).toBe('timeout');
    const big = await run('wf/big/do', `head -c ${VALUE_LIMIT_CHARS + 10} /dev/zero | tr '\\0' a`);
    expect(big.error).toEqual({ code: 'value_too_large', message: `stdout is over ${VALUE_LIMIT_CHARS} characters; the full output is artifact wf/big/do/output` });
  });
});

describe('answerPrompt from a replay cassette', () => {
  let cassette: string;

  beforeAll(() => {
    cassette = join(dir, 'sheet.jsonl');
    const lines = [
      { task: 'name', phase: 'statement', response: reply('  Fund I custody ') },
      { task: '*', phase: '*', response: reply('anything') },
    ];
    writeFileSync(cassette, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  });

  const ask = (transcriptId: string, statementId: string, scope: string) =>
    runActivity(acts.answerPrompt, [
      { transcriptId, statementId, prompt: 'Name it.', model: TEST_MODEL, maxTokens: 100, llm: { kind: 'replay', path: cassette }, cassetteScope: scope },
    ]);

  it('matches lines by statement id and phase "statement", counts usage, and reuses a stored reply on retry', async () => {
    const first = await ask('wf1/name/do', 'name', 'wf1');
    const tokens = { input: 50, output: 7, cacheRead: 0, cacheWrite: 0 };
    expect(first).toEqual({ text: 'Fund I custody', tokens, costUsd: costOf(TEST_MODEL, tokens) });
    expect(await ask('wf1/name/do', 'name', 'wf1')).toEqual(first);
    expect((await ask('wf1/other/do', 'other', 'wf1')).text).toBe('anything');
  });

  it('fails non-retryably, naming the statement, when no line is left', async () => {
    await ask('wf2/a/do', 'a', 'wf2');
    const err = await ask('wf2/c/do', 'c', 'wf2').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect((err as ApplicationFailure).type).toBe('CassetteExhausted');
    expect((err as ApplicationFailure).nonRetryable).toBe(true);
    expect((err as ApplicationFailure).message).toContain('task "c" phase "statement"');
  });
});

describe('keepSheetChunk and sheetChainState (docs/sheets.md#continue-as-new)', () => {
  it('read the runs of a chain back as one: each statement as the latest run left it, the completed lists in order', async () => {
    await acts.keepSheetChunk({ id: 'sheet-chain/s/chunk-1', chunk: { outcomes: [{ index: 0, status: 'success', value: 'a' }, { index: 2, status: 'success', value: 'c' }], completed: [2, 0] } });
    await acts.keepSheetChunk({
      id: 'sheet-chain/s/chunk-2',
      chunk: { outcomes: [{ index: 1, status: 'failed', error: { code: 'exit_code', message: 'no' } }, { index: 2, status: 'success', value: 'c', undo: 'failed', undoError: 'exit code 3' }], completed: [] },
    });
    expect(await acts.sheetChainState({ chunks: ['sheet-chain/s/chunk-1', 'sheet-chain/s/chunk-2'] })).toEqual({
      outcomes: [
        { index: 0, status: 'success', value: 'a' },
        { index: 1, status: 'failed', error: { code: 'exit_code', message: 'no' } },
        { index: 2, status: 'success', value: 'c', undo: 'failed', undoError: 'exit code 3' },
      ],
      completed: [2, 0],
    });
    await expect(acts.sheetChainState({ chunks: ['sheet-chain/s/chunk-9'] })).rejects.toThrow('sheet chain: no artifact sheet-chain/s/chunk-9 in the store');
  });
});

import { execFile } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { findRecorded, recordedError, recordedReply, withFileLock } from '../../../activities/model/cassette-recorder';
import { isErrorLine, parseCassette, type CassetteResponse } from '../../../core/parsing/cassette';
import { parsedResponses } from '../../support/model/cassette-builder';
import { parseLlmSpec } from '../../../client/requests/llm-spec';

const execFileAsync = promisify(execFile);

const reply = (text: string): CassetteResponse => ({
  id: `msg_${text}`,
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-6',
  content: [{ type: 'text', text }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: null },
});

const newFile = () => join(mkdtempSync(join(tmpdir(), 'dex-record-')), 'run.cassette.jsonl');
const who = (call: string, task = 'T1') => ({ call, task, phase: 'implement' });

describe('the record cassette', () => {
  it('appends each live reply as a replayable line carrying its call key, the response as the API gave it', async () => {
    const file = newFile();
    await recordedReply(file, who('task-a/implement/1#1'), async () => reply('one'));
    await recordedReply(file, who('task-a/implement/1#3', 'T2'), async () => reply('two'));
    const lines = parsedResponses(readFileSync(file, 'utf8'), file);
    expect(lines.map((l) => [l.call, l.task, l.phase, l.response.content])).toEqual([
      ['task-a/implement/1#1', 'T1', 'implement', [{ type: 'text', text: 'one' }]],
      ['task-a/implement/1#3', 'T2', 'implement', [{ type: 'text', text: 'two' }]],
    ]);
    expect(lines[0].response).toEqual(reply('one'));
  });

  it('records a call once: a retried call gets the recorded reply and calls nothing', async () => {
    const file = newFile();
    let calls = 0;
    const live = async () => reply(`attempt-${++calls}`);
    const first = await recordedReply(file, who('k#1'), live);
    const retried = await recordedReply(file, who('k#1'), live);
    expect(calls).toBe(1);
    expect(retried).toEqual(first);
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('writes the error line of a retried attempt before the answer, and none once the call has its answer', async () => {
    const file = newFile();
    const overloaded = { status: 529, type: 'overloaded_error', message: 'Overloaded', retryAfterSeconds: 30 };
    await recordedError(file, who('k#1'), overloaded);
    await recordedReply(file, who('k#1'), async () => reply('one'));
    // An attempt Temporal gave up on, failing after the answer was recorded.
    await recordedError(file, who('k#1'), overloaded);
    const lines = parseCassette(readFileSync(file, 'utf8'), file);
    expect(lines.map((l) => (isErrorLine(l) ? l.error : l.response.content))).toEqual([overloaded, [{ type: 'text', text: 'one' }]]);
    expect(findRecorded(file, 'k#1')?.content).toEqual([{ type: 'text', text: 'one' }]);
  });

  it('two attempts of one call at once record one line, and both return it', async () => {
    const file = newFile();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = recordedReply(file, who('k#1'), async () => (await gate, reply('slow')));
    const fast = await recordedReply(file, who('k#1'), async () => reply('fast'));
    release();
    expect(await slow).toEqual(fast);
    expect(fast.content).toEqual([{ type: 'text', text: 'fast' }]);
    expect(parsedResponses(readFileSync(file, 'utf8'), file)).toHaveLength(1);
  });

  it('keeps every line whole when many calls in several processes record at once', async () => {
    const file = newFile();
    const script = `
      require('tsx/cjs/api').register();
      const { recordedReply } = require(${JSON.stringify(join(__dirname, '..', '..', '..', 'activities', 'model', 'cassette-recorder.ts'))});
      const [file, proc] = process.argv.slice(1);
      const big = 'x'.repeat(20000);
      Promise.all(Array.from({ length: 15 }, (_, i) => recordedReply(file, { call: 'p' + proc + '#' + i, task: 'T' + proc, phase: 'implement' },
        async () => ({ type: 'message', role: 'assistant', model: 'claude-sonnet-4-6', content: [{ type: 'text', text: big + i }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } }))))
        .then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });`;
    await Promise.all([1, 2, 3, 4].map((p) => execFileAsync(process.execPath, ['-e', script, file, String(p)], { cwd: join(__dirname, '..', '..', '..') })));
    const lines = parsedResponses(readFileSync(file, 'utf8'), file);
    expect(lines).toHaveLength(60);
    expect(new Set(lines.map((l) => l.call)).size).toBe(60);
    expect(existsSync(`${file}.lock`)).toBe(false);
  }, 60_000);

  it('ends a line torn by a crash before appending, and takes over a lock a dead process left', async () => {
    const file = newFile();
    writeFileSync(`${file}.lock`, '99999\n');
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(`${file}.lock`, old, old);
    await recordedReply(file, who('k#1'), async () => reply('one'));
    appendFileSync(file, '{"call":"k#3","task":"T1","phase":"impl');
    await recordedReply(file, who('k#5'), async () => reply('three'));
    const text = readFileSync(file, 'utf8').split('\n');
    expect(text[1]).toBe('{"call":"k#3","task":"T1","phase":"impl');
    expect(findRecorded(file, 'k#3')).toBeUndefined();
    expect(findRecorded(file, 'k#5')?.content).toEqual([{ type: 'text', text: 'three' }]);
  });

  it('lets one holder into the lock at a time', async () => {
    const file = newFile();
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 10 }, () =>
        withFileLock(file, () => {
          most = Math.max(most, ++inside);
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
  });
});

describe('--llm record:FILE', () => {
  const env = { ANTHROPIC_API_KEY: 'test-key' };

  it('records to a new file, resolved', () => {
    const file = newFile();
    expect(parseLlmSpec(`record:${file}`, env)).toEqual({ kind: 'record', path: file });
  });

  it.each([
    ['no file', 'record:', {}, /needs a cassette file/],
    ['no key', 'record:FILE', { ANTHROPIC_API_KEY: '' }, /needs ANTHROPIC_API_KEY/],
    ['no folder', 'record:/nonexistent/dir/x.jsonl', {}, /folder not found/],
  ])('refuses %s', (_what, spec, extra, message) => {
    expect(() => parseLlmSpec(spec, { ...env, ...extra })).toThrow(message);
  });

  it('refuses a file that already has lines', () => {
    const file = newFile();
    writeFileSync(file, '{}\n');
    expect(() => parseLlmSpec(`record:${file}`, env)).toThrow(/already has lines: record to a new file/);
  });
});

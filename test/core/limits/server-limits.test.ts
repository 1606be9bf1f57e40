import { describe, expect, it } from 'vitest';
import { startMarks, taskAbout } from '../../../client/run/run-about';
import { UNSANDBOXED_WARNING } from '../../../client/run/sandbox-choice';
import { DETAILS_QUOTE_BYTES, MEMO_FIELD_BYTES, SUMMARY_BYTES, TITLE_BYTES, clipText, encodedBytes } from '../../../core/limits/server-limits';
import type { RunStatus } from '../../../core/run/run-types';
import type { TaskInput } from '../../../core/task/task-types';
import { runDetails } from '../../../workflows/run/run-details';

/** Bytes of `text` as a JSON payload's data, by Node's own count. */
const payloadBytes = (text: string): number => Buffer.byteLength(JSON.stringify(text));

describe('clipText', () => {
  it('keeps a text that fits, and cuts one that does not to the bytes a JSON payload of it takes, never inside a character', () => {
    expect(clipText('Fix sum', 400)).toBe('Fix sum');
    for (const text of ['x'.repeat(5_000), 'é'.repeat(5_000), '😀'.repeat(5_000), 'quote " and \\ and \n'.repeat(500), '\u0001'.repeat(500)]) {
      const cut = clipText(text, 400);
      expect(payloadBytes(cut), text.slice(0, 8)).toBeLessThanOrEqual(400);
      expect(payloadBytes(cut)).toBeGreaterThan(380);
      expect(cut.endsWith('…')).toBe(true);
      expect(text.startsWith(cut.slice(0, -1))).toBe(true);
      expect(cut).not.toMatch(/[\uD800-\uDBFF]…$/); // no half of a surrogate pair before the cut
    }
    expect(encodedBytes('é😀"')).toBe(payloadBytes('é😀"'));
  });
});

describe('what a run shows of a 100 KB title', () => {
  const title = `Fix sum ${'x'.repeat(100 * 1024)}`;
  const about = taskAbout({ title, repoPath: '/src/math', phases: ['implement'] } as TaskInput);

  it('is a memo and a static summary under the server limits; the unconfined warning stays whole', () => {
    expect(payloadBytes(about.title)).toBeLessThanOrEqual(TITLE_BYTES);
    for (const unsandboxed of [false, true]) {
      const marks = startMarks(about, unsandboxed);
      const memo = marks.memo as { title: string; repo: string };
      expect(payloadBytes(memo.title)).toBeLessThanOrEqual(MEMO_FIELD_BYTES);
      expect(Buffer.byteLength(JSON.stringify(marks.memo))).toBeLessThan(2 * 1024);
      expect(payloadBytes(marks.staticSummary!)).toBeLessThanOrEqual(SUMMARY_BYTES);
      expect(marks.staticSummary).toMatch(/^Task "Fix sum x+…" on math \(implement\)/);
      if (unsandboxed) expect(marks.staticSummary!.endsWith(` — ${UNSANDBOXED_WARNING}`)).toBe(true);
    }
  });

  it('current details quote a 100 KB reason and error in part, and still say how to answer', () => {
    const status = {
      kind: 'task',
      state: 'waiting',
      waitingFor: { gate: 'blocked', since: '2026-01-01T00:00:00Z', reason: 'r'.repeat(100 * 1024) },
      current: {},
      tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      costUsd: 0,
      error: 'e'.repeat(100 * 1024),
    } as unknown as RunStatus;
    const details = runDetails(status, 'task-math-fix-sum-1');
    expect(Buffer.byteLength(details)).toBeLessThan(2 * DETAILS_QUOTE_BYTES + 2_000);
    expect(details).toContain('dex approve task-math-fix-sum-1');
    expect(details).toMatch(/r…\n/);
  });
});

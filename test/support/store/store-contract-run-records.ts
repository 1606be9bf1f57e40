/**
 * The store contract's run records (test/support/store/store-contract.ts): transcripts, tool results,
 * artifacts, model-call and phase records, cassette claims.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { DexStore } from '../../../store/dex-store';
import { later, modelCall, phase, RAW_OUTPUT, unique } from './store-contract-fixtures';

/** The run-record tests, on the store `opened` gives once the contract has opened it. */
export function runRecordsContract(opened: () => DexStore): void {
  describe('run records', () => {
    let store: DexStore;
    beforeAll(() => {
      store = opened();
    });

    it('appends transcript messages once per seq and lists them in seq order', async () => {
      const t = unique('wf/transcript');
      await store.appendMessage(t, 2, 'user', [{ type: 'tool_result', tool_use_id: 'tu1', content: 'ok' }]);
      await store.appendMessage(t, 0, 'user', 'fix the bug');
      await store.appendMessage(t, 1, 'assistant', [{ type: 'text', text: 'on it' }]);
      await store.appendMessage(t, 1, 'assistant', 'a retried write, ignored');

      expect(await store.getMessage(t, 1)).toEqual({ seq: 1, role: 'assistant', content: [{ type: 'text', text: 'on it' }] });
      expect(await store.getMessage(t, 3)).toBeUndefined();
      expect(await store.getMessage(unique('other'), 0)).toBeUndefined();
      expect((await store.listMessages(t)).map((m) => [m.seq, m.role])).toEqual([
        [0, 'user'],
        [1, 'assistant'],
        [2, 'user'],
      ]);
      expect((await store.listMessages(t, 1)).map((m) => m.content)).toEqual(['fix the bug', [{ type: 'text', text: 'on it' }]]);
      expect(await store.listMessages(unique('none'))).toEqual([]);
    });

    it('lists the transcripts that start with a prefix, by when each began, and no others', async () => {
      const p = unique('wf');
      for (const t of [`${p}/b`, `${p}/a`, `${p}/B`, `${p}/_x`]) {
        await store.appendMessage(t, 0, 'user', t);
        await later();
      }
      await store.appendMessage(`${p}/b`, 1, 'assistant', 'later message of the first transcript');
      // Neighbours of the prefix's key range on either side of it in byte order; '#' and '~' sort
      // between '/' and '0' by some locales' rules, which a database's default collation may follow.
      for (const t of [`${p}0`, `${p}.x`, `${p}#x`, `${p}~x`, `${p}`, `${p.slice(0, -1)}`]) await store.appendMessage(t, 0, 'user', t);

      expect(await store.listTranscripts(`${p}/`)).toEqual([`${p}/b`, `${p}/a`, `${p}/B`, `${p}/_x`]);
      expect(await store.listTranscripts(`${p}/a`)).toEqual([`${p}/a`]);
      expect(await store.listTranscripts(unique('nothing'))).toEqual([]);
      expect(await store.listTranscripts('')).toEqual([]);
    });

    it('keeps a tool result once, byte for byte', async () => {
      const t = unique('wf/tools');
      await store.putToolResult(t, 'tu1', { name: 'run_command', content: RAW_OUTPUT, isError: false });
      await store.putToolResult(t, 'tu1', { name: 'run_command', content: 'a retried write, ignored', isError: true });
      await store.putToolResult(t, 'tu2', { name: 'read_file', content: 'no such file', isError: true });

      expect(await store.getToolResult(t, 'tu1')).toEqual({ name: 'run_command', content: RAW_OUTPUT, isError: false });
      expect(await store.getToolResult(t, 'tu2')).toEqual({ name: 'read_file', content: 'no such file', isError: true });
      expect(await store.getToolResult(t, 'tu3')).toBeUndefined();
    });

    it('keeps an artifact once, byte for byte', async () => {
      const id = unique('verify');
      await store.putArtifact(id, 'verify', RAW_OUTPUT);
      await store.putArtifact(id, 'other', 'a retried write, ignored');
      await store.putArtifact(`${id}-empty`, 'note', '');

      expect(await store.getArtifact(id)).toEqual({ kind: 'verify', content: RAW_OUTPUT });
      expect(await store.getArtifact(`${id}-empty`)).toEqual({ kind: 'note', content: '' });
      expect(await store.getArtifact(unique('missing'))).toBeUndefined();
      // By prefix, as a new run asks whether its id already has records (client/run/run-ids-in-use.ts).
      expect(await store.hasArtifactsUnder(id.slice(0, -2))).toBe(true);
      expect(await store.hasArtifactsUnder(`${id}/`)).toBe(false);
      expect(await store.hasArtifactsUnder(unique('missing'))).toBe(false);
      expect(await store.hasArtifactsUnder('')).toBe(false);
    });

    it("records a model call once and lists a workflow's calls in the order they were made", async () => {
      const wf = unique('wf');
      const first = modelCall(`${wf}/c2`, wf, { stopReason: 'tool_use' });
      const second = modelCall(`${wf}/c1`, wf, { input: 7, costUsd: 0 });
      await store.recordModelCall(first);
      await later();
      await store.recordModelCall(second);
      await store.recordModelCall({ ...first, input: 999_999, stopReason: 'end_turn' });
      await store.recordModelCall(modelCall(unique('elsewhere'), unique('wf')));

      expect(await store.getModelCall(first.callKey)).toEqual(first);
      expect(await store.getModelCall(second.callKey)).toEqual({ ...second, stopReason: null });
      expect(await store.getModelCall(unique('missing'))).toBeUndefined();
      expect((await store.listModelCalls(wf)).map((c) => [c.callKey, c.input])).toEqual([
        [first.callKey, 1200],
        [second.callKey, 7],
      ]);
    });

    it('records a model reply and its accounting together, once', async () => {
      const wf = unique('wf');
      const t = `${wf}/transcript`;
      const call = modelCall(`${wf}/call`, wf, { stopReason: 'end_turn' });
      await store.recordModelReply(t, 4, [{ type: 'text', text: 'done' }], call);
      await store.recordModelReply(t, 4, 'a retried reply, ignored', { ...call, output: 1 });

      expect(await store.listMessages(t)).toEqual([{ seq: 4, role: 'assistant', content: [{ type: 'text', text: 'done' }] }]);
      expect(await store.getModelCall(call.callKey)).toEqual(call);
      expect(await store.listModelCalls(wf)).toEqual([call]);
    });

    it("records a phase once and lists a workflow's phases in order", async () => {
      const wf = unique('wf');
      const plan = phase(`${wf}/plan`, wf, { phase: 'plan', commitSha: null });
      const implement = phase(`${wf}/implement`, wf, { commitSha: 'a'.repeat(40), state: 'failed' });
      await store.recordPhase(implement);
      await later();
      await store.recordPhase(plan);
      await store.recordPhase({ ...implement, state: 'completed', turns: 1 });

      expect(await store.listPhases(wf)).toEqual([implement, plan]);
      expect(await store.listPhases(unique('wf'))).toEqual([]);
    });

    it('claims each cassette line for one call key only, and gives a call key back its line', async () => {
      const scope = unique('scope');
      expect(await store.claimCassetteLine(scope, 'a.jsonl', 'k1', [3, 5, 7])).toBe(3);
      expect(await store.claimCassetteLine(scope, 'a.jsonl', 'k2', [3, 5, 7])).toBe(5);
      expect(await store.claimCassetteLine(scope, 'a.jsonl', 'k1', [7])).toBe(3);
      expect(await store.claimCassetteLine(scope, 'a.jsonl', 'k3', [3, 5])).toBeUndefined();
      expect(await store.claimCassetteLine(scope, 'a.jsonl', 'k3', [5, 3, 7])).toBe(7);
      expect(await store.claimCassetteLine(scope, 'b.jsonl', 'k2', [3, 5])).toBe(3);
      expect(await store.claimCassetteLine(unique('scope'), 'a.jsonl', 'k9', [3])).toBe(3);
      expect(await store.claimCassetteLine(scope, 'a.jsonl', 'k4', [])).toBeUndefined();
    });
  });
}

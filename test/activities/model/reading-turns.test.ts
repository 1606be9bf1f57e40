import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelCallInput, ModelCallResult } from '../../../activities/model/call-model';
import type { LlmSpec } from '../../../core/run/run-types';
import { addUsd } from '../../../core/run/usage';
import { completionTurn, toolTurn, usageTotals } from '../../support/model/cassette-builder';
import { callInput, openFixture, runCallModel, runCallModelWithin, type ModelCallFixture } from '../../support/model/call-model-fixture';
import { startFakeAnthropic, type FakeAnthropic } from '../../support/model/fake-anthropic-server';

// Each task's turns, in the order the model answers them.
const chain = [toolTurn('chain', ['read_file', { path: 'notes.txt' }]), toolTurn('chain', ['list_files', { path: '.' }]), completionTurn('chain', { status: 'complete', summary: 'read both' })];
const capped = [1, 2, 3].map(() => toolTurn('capped', ['read_file', { path: 'notes.txt' }]));
const writes = [toolTurn('writes', ['read_file', { path: 'notes.txt' }]), toolTurn('writes', ['edit_file', { path: 'notes.txt', old_string: 'a', new_string: 'b' }])];
const tight = [toolTurn('tight', ['read_file', { path: 'notes.txt' }]), completionTurn('tight', { status: 'complete', summary: 'never asked' })];

let fixture: ModelCallFixture;
let fake: FakeAnthropic;
let worktree: string;

beforeAll(async () => {
  fixture = openFixture();
  fake = await startFakeAnthropic({ cassette: [...chain, ...capped, ...writes, ...tight] });
  worktree = join(fixture.dir, 'wt');
  mkdirSync(worktree);
  execFileSync('git', ['init', '-q', worktree]);
  writeFileSync(join(worktree, 'notes.txt'), 'the notes say 42\n');
});

afterAll(async () => {
  await fake.close();
  await fixture.close();
});

const llm = (): LlmSpec => ({ kind: 'anthropic', baseUrl: fake.url });
const activities = () => fixture.activities({ baseURL: fake.url });

/** A call of `task` that may run its reads and go on for `moreTurns` turns within `forMs`. */
function reading(transcriptId: string, task: string, moreTurns: number, extra: Partial<ModelCallInput> = {}): ModelCallInput {
  return callInput(transcriptId, task, llm(), { reads: { worktreePath: worktree, limits: { commandTimeoutMs: 10_000, outputLimitBytes: 4096 } }, chain: { moreTurns, forMs: 60_000 }, ...extra });
}

describe('reading turns in one model call', () => {
  it('answers the turns after a reply that only read, stores each turn, and reports the last reply with all their spending', async () => {
    const transcriptId = fixture.newTranscript();
    const result = await runCallModel(activities(), reading(transcriptId, 'chain', 5));
    expect(result.turns).toBe(3);
    expect(result.completion).toEqual({ status: 'complete', summary: 'read both' });
    expect(result.toolUses).toEqual([]);
    expect(result.usage).toEqual(usageTotals(chain));
    const costs = [2, 4, 6].map((seq) => fixture.store.getModelCall(`${transcriptId}#${seq - 1}`)!.costUsd);
    expect(result.costUsd).toBe(addUsd(...costs));
    expect(fake.requestsFor('chain')).toHaveLength(3);

    // Every turn is in the transcript as a call of its own would have left it: reply, then the reads' results.
    expect(fixture.store.listMessages(transcriptId, 10).map((m) => `${m.seq}:${m.role}`)).toEqual(['0:user', '1:assistant', '2:user', '3:assistant', '4:user', '5:assistant']);
    const secondRequest = JSON.stringify(fake.requestsFor('chain')[1].body?.messages?.at(-1));
    expect(secondRequest).toContain('the notes say 42');
    expect(JSON.stringify(fake.requestsFor('chain')[2].body?.messages?.at(-1))).toContain('notes.txt');

    // A retry of the call after a crash reuses every stored turn: no model call is asked again.
    const again = await runCallModel(activities(), reading(transcriptId, 'chain', 5));
    expect(fake.requestsFor('chain')).toHaveLength(3);
    expect({ ...again, reused: false }).toEqual({ ...result, reused: false });
    expect(again.reused).toBe(true);
  });

  it('goes no further than its room for turns, nor on after its time', async () => {
    const transcriptId = fixture.newTranscript();
    const two = await runCallModel(activities(), reading(transcriptId, 'capped', 1));
    expect(two.turns).toBe(2);
    expect(two.toolsRun).toBe(true);
    expect(fake.requestsFor('capped')).toHaveLength(2);

    const followUp = { toolUseIds: two.toolUses.map((u) => u.id) };
    const timedOut = await runCallModel(activities(), reading(transcriptId, 'capped', 5, { userSeq: 4, followUp, chain: { moreTurns: 5, forMs: 0 } }));
    expect(timedOut.turns).toBeUndefined();
    expect(timedOut.toolsRun).toBe(true);
    expect(fake.requestsFor('capped')).toHaveLength(3);
  });

  it('stops at a reply that asks for more than reads, and leaves its tools to the workflow', async () => {
    const transcriptId = fixture.newTranscript();
    const result = await runCallModel(activities(), reading(transcriptId, 'writes', 5));
    expect(result.turns).toBe(2);
    expect(result.toolsRun).toBeUndefined();
    expect(result.toolUses.map((u) => u.name)).toEqual(['edit_file']);
    expect(fixture.store.getToolResult(transcriptId, result.toolUses[0].id)).toBeUndefined();
  });

  it('leaves a turn that no longer fits what is left of the allowance to the workflow, which reserves for it', async () => {
    const transcriptId = fixture.newTranscript();
    const deferred = await runCallModelWithin(activities(), reading(transcriptId, 'tight', 5, { allowance: { tokens: 1 } }));
    if (!('deferred' in deferred)) throw new Error('expected the first call to be deferred');
    // Room for the first turn's worst case, not for the first turn's spending and the second's worst case too.
    const result = (await runCallModelWithin(activities(), reading(transcriptId, 'tight', 5, { allowance: { tokens: deferred.worst.tokens + 100 } }))) as ModelCallResult;
    expect(result.turns).toBeUndefined();
    expect(result.toolsRun).toBe(true);
    expect(fake.requestsFor('tight')).toHaveLength(1);
  });
});

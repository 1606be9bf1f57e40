/** Which cassette line each request of a Claude Code session takes (activities/claude/session-answers.ts). */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sessionAnswers } from '../../../activities/claude/session-answers';
import { CassetteFiles } from '../../../activities/model/cassette-replay';
import type { ActivityDeps } from '../../../activities/deps';
import type { CassetteResponse } from '../../../core/parsing/cassette';
import type { LlmSpec } from '../../../core/run/run-types';
import type { AnswerSource } from '../../../host/claude-code/model-relay';
import { activityEnvironment, openFixture, plainReply, type ModelCallFixture } from '../../support/model/call-model-fixture';
import { startFakeAnthropic } from '../../support/model/fake-anthropic-server';

let fixture: ModelCallFixture;
let path: string;
beforeAll(() => {
  fixture = openFixture();
  path = join(fixture.dir, 'session.jsonl');
  writeFileSync(path, ['one', 'two', 'three'].map((text) => JSON.stringify({ task: 'T1', phase: 'implement', response: plainReply(text) })).join('\n') + '\n');
});
afterAll(() => fixture.close());

const textOf = (reply: unknown) => ((reply as CassetteResponse).content[0] as unknown as { text: string }).text;

/** A session's requests from `llm` at transcript place 1: `attempt()` starts an activity attempt, `ask` sends one request in it. */
function sessionAt(llm: Extract<LlmSpec, { kind: 'replay' | 'record' }>, deps: ActivityDeps) {
  const transcriptId = fixture.newTranscript();
  const call = { transcriptId, taskId: 'T1', phase: 'implement', cassetteScope: `scope-${transcriptId}` };
  const attempt = () => sessionAnswers(deps, new CassetteFiles(), llm, call, () => 1);
  const ask = (answer: AnswerSource) =>
    activityEnvironment().run(() => answer({ model: 'claude-sonnet-4-6', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], stream: true }, 'claude-code-20250219'));
  return { transcriptId, attempt, ask };
}

it('a second request before the answer is stored takes the next line; a resumed session takes the lines it took before', async () => {
  const { attempt, ask } = sessionAt({ kind: 'replay', path }, fixture.deps());

  const first = attempt();
  expect(textOf(await ask(first))).toBe('one');
  // The transcript has not moved on (a side request, or the last answer's messages not yet taken): the next line, not the same one.
  expect(textOf(await ask(first))).toBe('two');
  // A retried attempt resumes the session and asks again at the same place: the same lines, none used up.
  const resumed = attempt();
  expect(textOf(await ask(resumed))).toBe('one');
  expect(textOf(await ask(resumed))).toBe('two');
  expect(textOf(await ask(resumed))).toBe('three');
});

it('recording: a resumed session asking again where it asked before gets the recorded answer, and the model is asked once', async () => {
  const fake = await startFakeAnthropic({ answer: (task) => plainReply(`live answer for ${task}`) });
  try {
    const file = join(fixture.dir, 'recorded.jsonl');
    const { transcriptId, attempt, ask } = sessionAt({ kind: 'record', path: file }, fixture.deps({ baseURL: fake.url }));

    expect(textOf(await ask(attempt()))).toBe('live answer for T1');
    // The attempt died after recording, before the transcript kept the answer: the retry asks at the same place.
    expect(textOf(await ask(attempt()))).toBe('live answer for T1');
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0].headers['anthropic-beta']).toBe('claude-code-20250219');
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { call: string; task: string; phase: string });
    expect(lines).toEqual([expect.objectContaining({ call: `${transcriptId}#1`, task: 'T1', phase: 'implement' })]);
  } finally {
    await fake.close();
  }
});

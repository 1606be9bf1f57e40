/**
 * Where a Claude Code session's answers come from when the relay does not send its requests
 * straight to the model (docs/claude-code.md#cassettes): a replay cassette, or, with
 * `--llm record:FILE`, the live model through dex's own model call, each answer appended to FILE
 * as `callModel` records its own (activities/model/model-reply.ts).
 */
import type Anthropic from '@anthropic-ai/sdk';
import { modelCallKey } from '../../core/run/ids';
import type { LlmSpec } from '../../core/run/run-types';
import type { AnswerSource } from '../../host/claude-code/model-relay';
import type { ActivityDeps } from '../deps';
import type { CassetteFiles } from '../model/cassette-replay';
import { modelReply } from '../model/model-reply';

/** Who the session's requests are for. */
interface SessionCall {
  transcriptId: string;
  taskId: string;
  phase: string;
  cassetteScope: string;
}

/**
 * Answers the session's requests from `llm` (a replay or record cassette). Each request is keyed by
 * where its answer goes in the transcript (`nextSeq()`), so a resumed session's request takes the
 * line, or the recorded answer, it took before and is not paid for twice. A second request before
 * that answer is stored (a side request of Claude Code's, or one sent before dex has taken the last
 * answer's messages) gets a key of its own, `KEY/2`, and with it the next line, not the same one.
 */
export function sessionAnswers(deps: ActivityDeps, cassettes: CassetteFiles, llm: Extract<LlmSpec, { kind: 'replay' | 'record' }>, call: SessionCall, nextSeq: () => number): AnswerSource {
  const askedAt = new Map<number, number>();
  return (body, betas) => {
    const seq = nextSeq();
    const nth = (askedAt.get(seq) ?? 0) + 1;
    askedAt.set(seq, nth);
    const key = modelCallKey(call.transcriptId, seq);
    // The session asks for a stream; dex's model call streams on its own and the relay streams the answer back.
    const { stream: _stream, ...params } = body;
    return modelReply(deps, cassettes, {
      llm,
      params: params as unknown as Anthropic.MessageStreamParams,
      betas,
      cassetteScope: call.cassetteScope,
      task: call.taskId,
      phase: call.phase,
      callKey: nth === 1 ? key : `${key}/${nth}`,
    });
  };
}

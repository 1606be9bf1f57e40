/**
 * The `answerPrompt` activity: one model call for a sheet's llm statement — a prompt, no tools,
 * no agent system prompt — answered live or from a replay cassette (docs/interfaces.md#the-agent-and-the-model: `task` is the
 * statement id, `phase` is `statement`). It is the layers' prompt-only call with the prompt
 * stored first, so the reply and its accounting are stored before it reports and a retry reuses them.
 */
import type { LlmSpec, TokenUsage } from '../../core/run/run-types';
import type { ActivityDeps } from '../deps';
import { createLayerModelActivities, replyText } from '../model/prompt-call';

/** The cassette phase (and `x-dex-phase` header) of sheet statements. */
const STATEMENT_PHASE = 'statement';

/** Input of `answerPrompt`. */
interface PromptInput {
  /** The transcript in the store: the prompt at seq 0, the reply at seq 1. */
  transcriptId: string;
  statementId: string;
  prompt: string;
  model: string;
  maxTokens: number;
  llm: LlmSpec;
  /** Calls in one scope never take the same cassette line twice. */
  cassetteScope: string;
}

/** The reply's text (trimmed) and what it cost. */
interface PromptAnswer {
  text: string;
  tokens: TokenUsage;
  costUsd: number;
}

/** Builds the prompt activity over the host's dependencies. */
export const createPromptActivities = (deps: ActivityDeps) => {
  const { callLayerModel } = createLayerModelActivities(deps);
  return {
    /** Answers one prompt; the text of the reply is the statement's value. */
    async answerPrompt(input: PromptInput): Promise<PromptAnswer> {
      await deps.store.appendMessage(input.transcriptId, 0, 'user', [{ type: 'text', text: input.prompt }]);
      const call = await callLayerModel({
        transcriptId: input.transcriptId,
        userSeq: 0,
        target: input.statementId,
        node: STATEMENT_PHASE,
        model: input.model,
        maxTokens: input.maxTokens,
        llm: input.llm,
        cassetteScope: input.cassetteScope,
      });
      return { text: (await replyText(deps.store, input.transcriptId, call.replySeq)).trim(), tokens: call.usage, costUsd: call.costUsd };
    },
  };
};

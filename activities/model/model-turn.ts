/**
 * The model-turn protocol every kind's model call follows (the agent's `callModel`, a layer
 * node's `callLayerModel`): the user message a turn answers is stored first (once), a reply an
 * earlier attempt stored is reused instead of paid for again, the request is the transcript up
 * to that message, and the reply is stored with its accounting before the activity reports.
 * Each kind builds its own request and reads the reply its own way.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import type { TokenUsage } from '../../core/run/run-types';
import type { ModelCallRecord } from '../../store/records';
import type { DexStore } from '../../store/dex-store';

/** A content block as stored in a transcript. */
export type Block = { type: string } & Record<string, unknown>;

/** Stores the user message at `userSeq` of `transcriptId` unless it is there (a retried turn made it already). */
export async function ensureUserMessage(store: DexStore, transcriptId: string, userSeq: number, content: () => Promise<Block[]>): Promise<void> {
  if (!(await store.getMessage(transcriptId, userSeq))) await store.appendMessage(transcriptId, userSeq, 'user', await content());
}

/** The messages to send: the transcript up to `userSeq`, which must be the user message to answer. */
export async function transcriptUpTo(store: DexStore, transcriptId: string, userSeq: number): Promise<Anthropic.MessageParam[]> {
  const messages = await store.listMessages(transcriptId, userSeq);
  const last = messages.at(-1);
  if (!last || last.seq !== userSeq || last.role !== 'user') {
    throw nonRetryable(FAILURE.TranscriptError, `${transcriptId} has no user message at ${userSeq} to answer`);
  }
  return messages.map((m) => ({ role: m.role, content: m.content }) as Anthropic.MessageParam);
}

/** A stored call's tokens, as a turn reports them. */
export const usageOf = (record: ModelCallRecord): TokenUsage => ({ input: record.input, output: record.output, cacheRead: record.cacheRead, cacheWrite: record.cacheWrite });

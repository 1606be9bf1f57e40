/**
 * The `renderLayerPrompt` activity: a node's template rendered with the topic's context, fitted
 * to its token budget (docs/layers.md#context-budgets) and stored as the transcript's first
 * message. The template is the text the run was started with, from the store (so any worker of a
 * shared store can render it), else read from its path; `dex layer --resume` stores the templates
 * as they are then, so a fixed template takes effect. A prompt that cannot fit is not stored: the
 * workflow skips the topic.
 */
import { readFileSync } from 'node:fs';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import { layerTemplateArtifactId } from '../../core/run/ids';
import { fitPrompt, overBudgetReason, overRunBudgetReason } from '../../core/layer/layer-budget';
import { formatInsights, formatMessages } from '../../core/layer/layer-context';
import type { RenderLayerPromptInput, RenderLayerPromptResult } from '../../core/layer/target/target-steps';
import { renderPrompt } from '../../core/layer/prompt-template';
import type { ActivityDeps } from '../deps';
import { replyText } from '../model/prompt-call';

/** Builds the prompt activity over the host's dependencies. */
export const createLayerPromptActivities = (deps: ActivityDeps) => ({
  async renderLayerPrompt(given: RenderLayerPromptInput): Promise<RenderLayerPromptResult> {
    // A render that release 2026-11-22-0603 scheduled and this worker retries has no budget fields: it had no budgets.
    const input: RenderLayerPromptInput = {
      ...given,
      limit: given.limit ?? { tokens: Number.MAX_SAFE_INTEGER, why: 'no budget' },
      trim: given.trim ?? ['messages', 'insights'],
    };
    const template = await templateText(deps, input);
    const store = deps.store.layers;
    const { messages, insights, reply, targets } = input.context;
    const fixed = {
      topic: input.topic,
      layer: input.layerName,
      reply: reply ? await replyText(deps.store, reply.transcriptId, reply.seq) : '',
      targets: (targets ?? []).map((t) => `- ${t.key}: ${t.status}`).join('\n'),
    };
    const fitted = fitPrompt(
      {
        messages: messages ? await store.messagesByIds((await store.getContext(messages.key)) ?? []) : [],
        insights: insights ? await store.insightsByIds((await store.getContext(insights.key)) ?? []) : [],
        render: (m, i) => renderPrompt(template, { ...fixed, messages: formatMessages(m), insights: formatInsights(i) }),
      },
      input.limit.tokens,
      input.trim,
    );
    if (!fitted.fits) return { rendered: false, tokens: fitted.tokens, reason: overBudgetReason(input.node, fitted, input.limit, input.trim) };
    if (input.run && fitted.tokens > input.run.tokensLeft) {
      return { rendered: false, tokens: fitted.tokens, reason: overRunBudgetReason(input.node, fitted.tokens, input.run.tokensLeft, input.run.maxTokens) };
    }
    await deps.store.appendMessage(input.transcriptId, 0, 'user', [{ type: 'text', text: fitted.text }]);
    return { rendered: true, tokens: fitted.tokens, messagesTrimmed: fitted.messagesTrimmed, insightsTrimmed: fitted.insightsTrimmed };
  },
});

/** The template's text: the copy the run was started with, from the store; else (older runs) the file at its path. */
async function templateText(deps: ActivityDeps, input: RenderLayerPromptInput): Promise<string> {
  if (input.templateSha) {
    const stored = await deps.store.getArtifact(layerTemplateArtifactId(input.templateSha));
    if (stored) return stored.content;
  }
  try {
    return readFileSync(input.templatePath, 'utf8');
  } catch (err) {
    throw nonRetryable(FAILURE.TemplateMissing, `prompt template ${input.templatePath}: ${(err as Error).message}`);
  }
}

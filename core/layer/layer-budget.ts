/**
 * Context budgets (docs/layers.md#context-budgets): how many tokens a node's whole rendered
 * prompt may have, trimming it to fit by the layer's declared priority, and the reasons a topic
 * is skipped when it cannot fit. Pure: the render activity fits, the workflow computes limits.
 */
import { formatInsight, formatMessage, type InsightView, type TopicMessage } from './layer-context';
import { estimateTokens } from './layer-tokens';
import type { ContextRules, TrimKind } from './layer-types';
import { plural } from '../text/plural';

/** Tokens the API adds around a request's one user message; counted so that an estimate errs high. */
export const REQUEST_OVERHEAD_TOKENS = 8;

/** The estimated input tokens of a request whose one user message is `prompt`. */
export function promptTokens(prompt: string): number {
  return estimateTokens(prompt) + REQUEST_OVERHEAD_TOKENS;
}

/** The parts of a prompt a budget may trim, and how to render it with what is kept. */
interface PromptParts {
  /** Oldest first. */
  messages: readonly TopicMessage[];
  insights: readonly InsightView[];
  render(messages: readonly TopicMessage[], insights: readonly InsightView[]): string;
}

/** A rendered prompt, trimmed as far as it had to be (or could be). */
interface FittedPrompt {
  text: string;
  tokens: number;
  /** False when even with everything trimmable trimmed it is over the budget. */
  fits: boolean;
  messagesTrimmed: number;
  insightsTrimmed: number;
}

/**
 * Renders the prompt and, while it is over `maxTokens`, trims by `trim`: all that one kind can
 * give before the next (the oldest messages first, the weakest insights first). The template
 * text and the untrimmable parts (topic, previous answer, targets) always stay.
 */
export function fitPrompt(parts: PromptParts, maxTokens: number, trim: readonly TrimKind[]): FittedPrompt {
  let messages = [...parts.messages];
  const weakestFirst = [...parts.insights].sort(
    (a, b) => a.strength - b.strength || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id),
  );
  const dropped = new Set<string>();
  const keptInsights = () => parts.insights.filter((i) => !dropped.has(i.id));
  let text = parts.render(messages, keptInsights());
  let tokens = promptTokens(text);
  for (const kind of trim) {
    while (tokens > maxTokens) {
      // Drop as many items as the excess needs by their own estimates, then count the whole again.
      let excess = tokens - maxTokens;
      let n = 0;
      if (kind === 'messages') {
        while (excess > 0 && n < messages.length) excess -= estimateTokens(formatMessage(messages[n++]) + '\n');
        messages = messages.slice(n);
      } else {
        for (const i of weakestFirst) {
          if (excess <= 0) break;
          if (dropped.has(i.id)) continue;
          dropped.add(i.id);
          excess -= estimateTokens(formatInsight(i) + '\n');
          n++;
        }
      }
      if (n === 0) break;
      text = parts.render(messages, keptInsights());
      tokens = promptTokens(text);
    }
  }
  return {
    text,
    tokens,
    fits: tokens <= maxTokens,
    messagesTrimmed: parts.messages.length - messages.length,
    insightsTrimmed: dropped.size,
  };
}

/** The budget of one prompt, and what sets it (for a skip reason). */
export interface PromptLimit {
  tokens: number;
  why: string;
}

/** The tighter of the node's `max_context_tokens` and what the topic has left of `max_tokens_per_topic`. */
export function promptLimit(nodeMax: number, rules: ContextRules, topicSent: number): PromptLimit {
  const perTopic = rules.maxTokensPerTopic;
  if (perTopic !== undefined && perTopic - topicSent < nodeMax) {
    return { tokens: Math.max(0, perTopic - topicSent), why: `max_tokens_per_topic ${perTopic}${topicSent ? `, ${topicSent} already sent` : ''}` };
  }
  return { tokens: nodeMax, why: `max_context_tokens ${nodeMax}` };
}

/** Why a topic is skipped whose prompt does not fit its budget even trimmed as far as `trim` allows. */
export function overBudgetReason(node: string, fitted: FittedPrompt, limit: PromptLimit, trim: readonly TrimKind[]): string {
  const trimmed = trim.length ? `with ${trim.join(' and ')} trimmed (${plural(fitted.messagesTrimmed, 'message')}, ${plural(fitted.insightsTrimmed, 'insight')})` : 'with nothing to trim (trim: [])';
  return `prompt of node "${node}" needs ~${fitted.tokens} tokens ${trimmed}, over its budget of ${limit.tokens} (${limit.why})`;
}

/** Why a topic is skipped whose prompt would take the run past `max_tokens_per_run`. */
export function overRunBudgetReason(node: string, tokens: number, runTokensLeft: number, perRun: number): string {
  return `prompt of node "${node}" (~${tokens} tokens) would take the run past max_tokens_per_run ${perRun}: ${Math.max(0, runTokensLeft)} left`;
}

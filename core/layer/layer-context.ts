/**
 * What a layer's prompt is made of: topic messages and prior insights as text, and trimming
 * fetched messages to a token budget. Pure: shared by activities and tests.
 */
import { estimateTokens } from './layer-tokens';

export { estimateTokens };

/** A message of a conversation topic, as imported by `dex messages import`. */
export interface TopicMessage {
  id: string;
  topic: string;
  channel: string;
  author: string;
  text: string;
  /** ISO 8601. */
  time: string;
}

/** A stored insight as prompts and `dex insights list` show it. */
export interface InsightView {
  id: string;
  topic: string;
  category: string;
  content: string;
  confidence: number;
  importance: number;
  novelty: number;
  strength: number;
  createdAt: string;
  /** A `graceful` store kept an answer that was not the insight JSON; prompts mark it. */
  unparsed?: boolean;
}

/** One message as a prompt line. */
export function formatMessage(m: TopicMessage): string {
  return `[${m.time}] #${m.channel} ${m.author}: ${m.text}`;
}

/** Messages (oldest first) as prompt text. */
export function formatMessages(messages: readonly TopicMessage[]): string {
  return messages.map(formatMessage).join('\n');
}

/** One insight as a prompt line with its numbers; an unparsed one says so, since its numbers are defaults. */
export function formatInsight(i: InsightView): string {
  return `- ${i.unparsed ? '(unparsed) ' : ''}(${i.category}, confidence ${i.confidence}, importance ${i.importance}) ${i.content}`;
}

/** Insights as prompt text, one a line. */
export function formatInsights(insights: readonly InsightView[]): string {
  return insights.map(formatInsight).join('\n');
}

/**
 * The newest of `messages` (oldest first) whose lines fit in `maxTokens`, still oldest first:
 * the oldest are trimmed first, since the latest talk matters most to a reflection.
 */
export function trimOldestToFit(messages: readonly TopicMessage[], maxTokens: number | undefined): { kept: TopicMessage[]; trimmed: number; tokens: number } {
  let tokens = 0;
  let start = messages.length;
  while (start > 0) {
    const cost = estimateTokens(formatMessage(messages[start - 1]) + '\n');
    if (maxTokens !== undefined && tokens + cost > maxTokens) break;
    tokens += cost;
    start--;
  }
  return { kept: messages.slice(start), trimmed: start, tokens };
}

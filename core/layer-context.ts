/**
 * What a layer's prompt is made of: topic messages and prior insights as text, token
 * estimates, and trimming to a context budget. Pure: shared by activities and tests.
 */

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
}

/** Characters per token of the estimate: rough, but stable and cheap, and it errs on the safe side for English. */
const CHARS_PER_TOKEN = 4;

/** Estimated tokens of `text` (~ characters / 4). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** One message as a prompt line. */
export function formatMessage(m: TopicMessage): string {
  return `[${m.time}] #${m.channel} ${m.author}: ${m.text}`;
}

/** Messages (oldest first) as prompt text. */
export function formatMessages(messages: readonly TopicMessage[]): string {
  return messages.map(formatMessage).join('\n');
}

/** Insights as prompt text, one a line with their numbers. */
export function formatInsights(insights: readonly InsightView[]): string {
  return insights
    .map((i) => `- (${i.category}, confidence ${i.confidence}, importance ${i.importance}) ${i.content}`)
    .join('\n');
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

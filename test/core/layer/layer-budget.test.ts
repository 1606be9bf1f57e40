import { describe, expect, it } from 'vitest';
import { layerStore } from '../../../store/sqlite/layer-store';
import { Store } from '../../../store/sqlite/sqlite-store';
import { DEFAULT_NUMBERS, isEmptyAnswer } from '../../../core/layer/insight-parse';
import { fitPrompt, overBudgetReason, promptLimit, promptTokens, REQUEST_OVERHEAD_TOKENS } from '../../../core/layer/layer-budget';
import { formatInsights, formatMessages, type InsightView } from '../../../core/layer/layer-context';
import { salienceFor } from '../../../core/layer/layer-salience';
import { tokensIn } from '../../../core/run/usage';
import { estimateTokens } from '../../../core/layer/layer-tokens';
import { messagesFor } from '../../support/plans/layer-fixtures';

describe('estimateTokens (core/layer/layer-tokens.ts)', () => {
  // Counts of the Claude 2 tokenizer (@anthropic-ai/tokenizer, run once offline): the estimate must
  // not fall below them, and must be closer than characters ÷ 4, which falls well below for chat and CJK.
  it.each([
    ['a chat line', '[2025-01-31T18:00:00.000Z] #general ana: the deadline moved again, can we talk about it tomorrow?', 33],
    ['English prose', 'The team keeps coming back to deadlines; morale dips each time the date moves.', 18],
    ['Chinese', '会议改到星期四了，因为项目经理生病了。', 18],
    ['insight JSON', '{"content": "ops is tired", "confidence": 0.8, "importance": 0.7}', 22],
  ])('errs high on %s, within 1.4× the reference', (_what, text, reference) => {
    const estimate = estimateTokens(text);
    expect(estimate).toBeGreaterThanOrEqual(reference);
    expect(estimate).toBeLessThanOrEqual(Math.ceil(reference * 1.4));
  });

  it('does better than characters ÷ 4 on chat lines and CJK, which that estimate undercounts', () => {
    const chat = '[2025-01-31T18:00:00.000Z] #general ana: the deadline moved again, can we talk about it tomorrow?';
    expect(Math.ceil(chat.length / 4)).toBeLessThan(33);
    expect(Math.ceil('会议改到星期四了，因为项目经理生病了。'.length / 4)).toBeLessThan(18);
  });

  it('counts nothing in nothing, and a request adds its overhead', () => {
    expect(estimateTokens('')).toBe(0);
    expect(promptTokens('')).toBe(REQUEST_OVERHEAD_TOKENS);
  });
});

const insight = (id: string, strength: number, content: string): InsightView => ({
  id,
  topic: 't',
  category: 'reflection',
  content,
  confidence: 0.5,
  importance: 0.5,
  novelty: 0.5,
  strength,
  createdAt: `2025-01-0${id.slice(-1)}T00:00:00Z`,
});

describe('fitPrompt (core/layer/layer-budget.ts)', () => {
  const messages = messagesFor(['t'], 8);
  const insights = [insight('i1', 3, 'strong and old'), insight('i2', 0.5, 'weak one'), insight('i3', 2, 'middling')];
  const template = 'TEMPLATE TEXT that is never trimmed.\n{{messages}}\n---\n{{insights}}\n';
  const parts = { messages, insights, render: (m: readonly never[] | typeof messages, i: readonly InsightView[]) => template.replace('{{messages}}', formatMessages(m)).replace('{{insights}}', formatInsights(i)) };
  const full = promptTokens(parts.render(messages, insights));
  const bare = promptTokens(parts.render([], []));

  it('leaves a prompt within its budget as it is', () => {
    expect(fitPrompt(parts, full, ['messages', 'insights'])).toMatchObject({ fits: true, tokens: full, messagesTrimmed: 0, insightsTrimmed: 0 });
  });

  it('trims the oldest messages first, and only as many as it must', () => {
    const fitted = fitPrompt(parts, full - 1, ['messages', 'insights']);
    expect(fitted).toMatchObject({ fits: true, messagesTrimmed: 1, insightsTrimmed: 0 });
    expect(fitted.text).not.toContain('message 0 about t');
    expect(fitted.text).toContain('message 1 about t');
  });

  it('trims by the declared priority: insights first, the weakest first', () => {
    const fitted = fitPrompt(parts, full - 1, ['insights', 'messages']);
    expect(fitted).toMatchObject({ fits: true, messagesTrimmed: 0, insightsTrimmed: 1 });
    expect(fitted.text).not.toContain('weak one');
    expect(fitted.text).toContain('strong and old');
  });

  it('after one kind is used up, trims the next; the template text always stays', () => {
    const fitted = fitPrompt(parts, bare + 10, ['messages', 'insights']);
    expect(fitted.messagesTrimmed).toBe(8);
    expect(fitted.insightsTrimmed).toBeGreaterThan(0);
    expect(fitted.fits).toBe(true);
    expect(fitted.text).toContain('TEMPLATE TEXT that is never trimmed.');
  });

  it('a kind not in trim is never trimmed: the prompt does not fit, and the reason names the numbers', () => {
    const fitted = fitPrompt(parts, bare + 10, ['insights']);
    expect(fitted).toMatchObject({ fits: false, messagesTrimmed: 0, insightsTrimmed: 3 });
    const limit = promptLimit(bare + 10, { trim: ['insights'] }, 0);
    expect(overBudgetReason('reflect', fitted, limit, ['insights'])).toBe(
      `prompt of node "reflect" needs ~${fitted.tokens} tokens with insights trimmed (0 messages, 3 insights), over its budget of ${bare + 10} (max_context_tokens ${bare + 10})`,
    );
  });

  it('the template alone over the budget cannot fit, whatever is trimmed', () => {
    const fitted = fitPrompt(parts, bare - 1, ['messages', 'insights']);
    expect(fitted).toMatchObject({ fits: false, tokens: bare, messagesTrimmed: 8, insightsTrimmed: 3 });
  });
});

describe('promptLimit', () => {
  it("is the node's max_context_tokens, or what the topic has left of max_tokens_per_topic when that is less", () => {
    expect(promptLimit(1000, { trim: [] }, 0)).toEqual({ tokens: 1000, why: 'max_context_tokens 1000' });
    expect(promptLimit(1000, { maxTokensPerTopic: 1500, trim: [] }, 0)).toEqual({ tokens: 1000, why: 'max_context_tokens 1000' });
    expect(promptLimit(1000, { maxTokensPerTopic: 1500, trim: [] }, 800)).toEqual({ tokens: 700, why: 'max_tokens_per_topic 1500, 800 already sent' });
    expect(promptLimit(1000, { maxTokensPerTopic: 1500, trim: [] }, 1600).tokens).toBe(0);
  });
});

describe('salience amounts (core/layer/layer-salience.ts)', () => {
  it('cost every input token the model read, cache reads and writes too, times cost_per_token', () => {
    const usage = { input: 200, output: 50, cacheRead: 30, cacheWrite: 20 };
    expect(tokensIn(usage)).toBe(250);
    expect(salienceFor(tokensIn(usage), { costPerToken: 0.002, refund: 0.5 })).toBeCloseTo(0.5, 12);
  });
});

describe('empty answers and unparsed insights', () => {
  it('an answer of whitespace only, or none, is empty', () => {
    expect(isEmptyAnswer('')).toBe(true);
    expect(isEmptyAnswer(' \n\t ')).toBe(true);
    expect(isEmptyAnswer(' x ')).toBe(false);
  });

  it('fetching leaves unparsed insights out unless asked for; prompts mark them', () => {
    const store = Store.open(':memory:');
    const layers = layerStore(store);
    const base = { topic: 't', category: 'reflection', ...DEFAULT_NUMBERS, strength: 1, layerRunId: 'run', salienceSpent: 1 };
    layers.putInsight({ ...base, id: 'parsed', content: 'a real insight', unparsed: false });
    layers.putInsight({ ...base, id: 'prose', content: 'prose kept by graceful', unparsed: true });
    expect(layers.topicInsights('t', 'recent', 5).map((i) => i.id)).toEqual(['parsed']);
    const all = layers.topicInsights('t', 'recent', 5, true);
    expect(all.map((i) => i.id).sort()).toEqual(['parsed', 'prose']);
    const text = formatInsights(all.sort((a, b) => a.id.localeCompare(b.id)));
    expect(text).toBe('- (reflection, confidence 0.5, importance 0.5) a real insight\n- (unparsed) (reflection, confidence 0.5, importance 0.5) prose kept by graceful');
    store.close();
  });

  it('the ledger lists a run target\'s entries by key prefix', () => {
    const store = Store.open(':memory:');
    const layers = layerStore(store);
    layers.addSalience('run/t/reflect/reserve', 't', -0.3, 'reserve:run');
    layers.addSalience('run/t/reflect/settle', 't', 0.05, 'settle:run');
    layers.addSalience('run/u/reflect/reserve', 'u', -0.1, 'reserve:run');
    expect(layers.salienceEntries('run/t/').map((e) => [e.key, e.reason])).toEqual([
      ['run/t/reflect/reserve', 'reserve:run'],
      ['run/t/reflect/settle', 'settle:run'],
    ]);
    store.close();
  });
});

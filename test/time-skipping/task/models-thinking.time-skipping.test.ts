import { describe, expect, it } from 'vitest';
import { completionTurn, fixSumTurns, inPhase } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';

const dex = useDexEnvironment({
  server: 'time-skipping',
  cassette: [...fixSumTurns('T-think'), ...inPhase('review', [completionTurn('T-think', { status: 'complete', summary: 'sum is right' })])],
  queue: 'dex-ts-models',
});

describe('a model per phase, and thinking in the decision phases', () => {
  it('runs review on its own model with extended thinking, and implement on the default without', async () => {
    const { handle } = await dex.startTask('T-think', {
      phases: ['implement', 'review'],
      models: { default: 'claude-sonnet-4-6', review: 'claude-opus-4-5' },
      thinking: { phases: ['review'], budgetTokens: 1024 },
      maxTokens: 1024,
    });
    expect((await handle.result()).state).toBe('completed');
    const requests = dex.requestsFor('T-think');
    const implement = requests.filter((r) => r.headers['x-dex-phase'] === 'implement');
    const review = requests.filter((r) => r.headers['x-dex-phase'] === 'review');
    expect(implement).toHaveLength(3);
    expect(implement.every((r) => r.body!.model === 'claude-sonnet-4-6' && r.body!.thinking === undefined && r.body!.max_tokens === 1024)).toBe(true);
    expect(review).toHaveLength(1);
    expect(review[0].body).toMatchObject({ model: 'claude-opus-4-5', thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 2048 });
  });
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { parseDexConfig } from '../../../client/config/config-file';
import { DEFAULT_THINKING_BUDGET, DEFAULT_THINKING_PHASES } from '../../../client/config/model-config';
import { modelsForWeight, thinkingBudget } from '../../../core/run/model-choice';

const repo = mkdtempSync(`${tmpdir()}/dex-models-`);
const parse = (text: string) => parseDexConfig(text, repo);

describe('models per weight × phase, and thinking', () => {
  it('reads models per phase and per weight × phase, the weight winning for its phases', () => {
    const config = parse('models:\n  default: claude-sonnet-4-6\n  review: claude-opus-4-5\n  large: { review: claude-opus-4-8, spec: claude-opus-4-5 }\n');
    expect(config.models).toEqual({ default: 'claude-sonnet-4-6', review: 'claude-opus-4-5' });
    expect(modelsForWeight(config.models, config.modelsByWeight, 'large')).toEqual({ default: 'claude-sonnet-4-6', review: 'claude-opus-4-8', spec: 'claude-opus-4-5' });
    expect(modelsForWeight(config.models, config.modelsByWeight, 'small')).toEqual(config.models);
    expect(modelsForWeight(config.models, config.modelsByWeight, undefined)).toEqual(config.models);
  });

  it('refuses a model without a known price, or a weight that is not a map, naming the key', () => {
    expect(() => parse('models: { review: gpt-4o }\n')).toThrow('"models.review": no price is known for model "gpt-4o"');
    expect(() => parse('models: { large: claude-opus-4-5 }\n')).toThrow('"models.large" must be a map of phase to model id');
  });

  it('turns thinking on for the decision phases, or as configured, and refuses a budget under the API minimum', () => {
    expect(parse('thinking: true\n').thinking).toEqual({ phases: DEFAULT_THINKING_PHASES, budgetTokens: DEFAULT_THINKING_BUDGET });
    const config = parse('thinking: { phases: [review], budgetTokens: 2048 }\n');
    expect(thinkingBudget(config.thinking, 'review')).toBe(2048);
    expect(thinkingBudget(config.thinking, 'implement')).toBeUndefined();
    expect(parse('').thinking).toBeUndefined();
    expect(() => parse('thinking: { budgetTokens: 512 }\n')).toThrow('"thinking.budgetTokens" must be a whole number of at least 1024');
    expect(() => parse('thinking: { phase: [review] }\n')).toThrow('"thinking.phase" is not a known key');
  });
});

import { budgetSpentReason, inputTokens, roundSalience, salienceFor } from '../../core/layer-salience';
import type { LayerTargetInput, LayerTargetResult } from '../../core/layer-types';
import type { TokenUsage } from '../../core/run-types';
import type { LayerActivities } from './activities';

/**
 * One target's salience account (docs/layers.md#salience): each model call reserves its
 * estimated prompt × cost_per_token before it is made and settles to the input tokens the model
 * counted after it; a failed target gets the `refund` fraction of what it spent back. Every
 * ledger entry is keyed by the call (`<call>/reserve`, `<call>/settle`), so a replayed or
 * retried step never charges twice. `result.salienceSpent` is the net spending so far.
 */
export class SalienceAccount {
  private readonly reserved = new Map<string, number>();
  private readonly pays: boolean;

  constructor(
    private readonly input: LayerTargetInput,
    private readonly acts: LayerActivities,
    private readonly result: LayerTargetResult,
  ) {
    this.pays = input.paysSalience && input.salience.costPerToken > 0;
  }

  /** Reserves for the call `callKey` of `node` on `tokens` estimated prompt tokens; the skip reason when the balance does not cover it. */
  async reserve(callKey: string, node: string, tokens: number): Promise<{ ok: true } | { ok: false; reason: string }> {
    if (!this.pays) return { ok: true };
    const { input } = this;
    const amount = salienceFor(tokens, input.salience);
    const entry = { key: `${callKey}/reserve`, topic: input.target, amount, runId: input.runId };
    const r = await this.acts.reserveLayerSalience(entry, `${input.target} · ${node} · reserve salience ${roundSalience(amount)}`);
    if (!r.reserved) return { ok: false, reason: budgetSpentReason(node, r.balance, amount, tokens, input.salience) };
    this.reserved.set(callKey, amount);
    this.result.salienceSpent += amount;
    return { ok: true };
  }

  /** Settles the call `callKey` to what the model counted: the difference is credited, or charged. */
  async settle(callKey: string, node: string, usage: TokenUsage): Promise<void> {
    const reserved = this.reserved.get(callKey);
    if (reserved === undefined) return;
    this.reserved.delete(callKey);
    const { input } = this;
    const amount = reserved - salienceFor(inputTokens(usage), input.salience);
    const entry = { key: `${callKey}/settle`, topic: input.target, amount, runId: input.runId };
    await this.acts.settleLayerSalience(entry, `${input.target} · ${node} · settle salience ${roundSalience(-amount)}`);
    this.result.salienceSpent -= amount;
  }

  /** Gives back the refundable part of what a failed target spent (a reservation whose call failed counts as spent). */
  async refund(key: string): Promise<void> {
    const amount = this.result.salienceSpent * this.input.salience.refund;
    if (amount <= 0) return;
    const entry = { key, topic: this.input.target, amount, runId: this.input.runId };
    await this.acts.refundTargetSalience(entry, `${this.input.target} · refund salience ${roundSalience(amount)}`);
    this.result.salienceSpent -= amount;
  }
}

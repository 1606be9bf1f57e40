import { budgetSpentReason, roundSalience, salienceFor } from '../layer-salience';
import { tokensIn } from '../../run/usage';
import type { LayerTargetInput, LayerTargetResult } from '../layer-types';
import type { TokenUsage } from '../../run/run-types';
import type { TargetSteps } from './target-steps';

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
  /**
   * The way of release 2026-11-22-0603, for runs it started (docs/production.md#upgrading-dex-with-runs-in-flight):
   * one flat `salience.cost` spent before the target's first model call, before its prompt is
   * rendered, and nothing settled. `charge` is then that cost, unless already paid.
   */
  readonly perAttempt: { charge: number } | undefined;

  constructor(
    private readonly input: LayerTargetInput,
    private readonly acts: TargetSteps,
    private readonly result: LayerTargetResult,
  ) {
    // The input decides, not a patch marker: every run release 2026-11-22-0603 started carries its flat `cost`
    // (core/layer/layer-released.ts), no later run does, and histories recorded between that release
    // and this check have no marker that patched() could find. A target an old parent starts
    // after an upgrade gets the flat cost too, so one run pays one way throughout.
    const perCall = input.salience.cost === undefined;
    const flat = input.paysSalience ? (input.salience.cost ?? 0) : 0;
    this.perAttempt = perCall ? undefined : { charge: flat };
    this.pays = perCall && input.paysSalience && input.salience.costPerToken > 0;
  }

  /** release 2026-11-22-0603's flat charge, once, before the first model call; the skip reason when the balance does not cover it. */
  async payAttempt(): Promise<{ ok: true } | { ok: false; reason: string }> {
    const cost = this.perAttempt?.charge ?? 0;
    if (cost === 0) return { ok: true };
    this.perAttempt!.charge = 0;
    const { input } = this;
    const charge = { key: `${input.runId}/${input.target}/salience`, topic: input.target, cost, runId: input.runId };
    const spend = await this.acts.spendTargetSalience(charge, `${input.target} · spend salience ${cost}`);
    if (!spend.spent) return { ok: false, reason: `salience budget spent: balance ${roundSalience(spend.balance)} < cost ${cost}` };
    this.result.salienceSpent = cost;
    return { ok: true };
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
    const amount = reserved - salienceFor(tokensIn(usage), input.salience);
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

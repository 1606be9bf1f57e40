/**
 * The salience ledger activities of a layer run (docs/layers.md#salience): reserve before a
 * model call, settle after it, refund part of a failed target's spending. Each writes one
 * keyed ledger entry, so a retried activity never charges or credits twice.
 */
import { ledgerReason } from '../../core/layer/layer-salience';
import type { SalienceEntry } from '../../core/layer/target/target-steps';
import type { ActivityDeps } from '../deps';

/** Builds the salience activities over the host's dependencies. */
export const createLayerSalienceActivities = (deps: ActivityDeps) => {
  const { layers } = deps.store;
  return {
    /**
     * Reserves `amount` from the topic under `key` when its balance covers it (a key already
     * reserved counts as reserved: a retry); `reserved: false` and the balance when it does not.
     */
    async reserveLayerSalience(input: SalienceEntry): Promise<{ reserved: boolean; balance: number }> {
      const r = await layers.spendSalience(input.key, input.topic, input.amount, ledgerReason.reserve(input.runId));
      return { reserved: r.spent, balance: r.balance };
    },

    /**
     * Settles a reservation on what the call really cost: `amount` is the reservation less the
     * actual cost, credited when positive, charged when negative (even past a zero balance: the
     * tokens were read). A zero settlement is written too, so the ledger shows every call settled.
     */
    async settleLayerSalience(input: SalienceEntry): Promise<void> {
      await layers.addSalience(input.key, input.topic, input.amount, ledgerReason.settle(input.runId));
    },

    /**
     * release 2026-11-22-0603's flat charge per target attempt, kept while runs that release started may be open
     * (core/layer/target/target-salience.ts perAttempt): spends `cost` under `key` if the balance covers it.
     */
    async spendTargetSalience(input: { key: string; topic: string; cost: number; runId: string }): Promise<{ spent: boolean; balance: number }> {
      return layers.spendSalience(input.key, input.topic, input.cost, `attempt:${input.runId}`);
    },

    /** Gives back part of a failed target's spending (once per key). */
    async refundTargetSalience(input: SalienceEntry): Promise<void> {
      await layers.addSalience(input.key, input.topic, input.amount, ledgerReason.refund(input.runId));
    },
  };
};

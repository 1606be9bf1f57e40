/**
 * What a layer's model calls cost their topic in salience (docs/layers.md#salience): a
 * reservation on the estimated prompt before each call, settled on the input tokens the model
 * counted after it, and a refund of part of what a failed target spent. Pure: the workflow
 * computes the amounts, keyed activities write them.
 */
import type { SalienceRules } from './layer-types';

/** The salience `tokens` input tokens cost. */
export function salienceFor(tokens: number, rules: SalienceRules): number {
  return tokens * rules.costPerToken;
}

/** A number as reasons show it (three decimals). */
export function roundSalience(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** Why a topic is skipped whose balance does not cover a model call's reservation. */
export function budgetSpentReason(node: string, balance: number, reservation: number, tokens: number, rules: SalienceRules): string {
  return `salience budget spent: balance ${roundSalience(balance)} < reservation ${roundSalience(reservation)} for node "${node}" (~${tokens} prompt tokens × ${rules.costPerToken})`;
}

/** Ledger reasons: which run an entry belongs to and what it is. */
export const ledgerReason = {
  reserve: (runId: string) => `reserve:${runId}`,
  settle: (runId: string) => `settle:${runId}`,
  refund: (runId: string) => `refund:${runId}`,
};

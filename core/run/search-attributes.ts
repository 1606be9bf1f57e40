/**
 * dex's custom search attributes (docs/interfaces.md#plans-workflows-and-ids): every workflow
 * carries them, kept current, so the Web UI, `temporal workflow list --query` and `dex list`
 * can find runs by dex's own state. Registered on the embedded dev server at start and by
 * `dex setup-namespace` on any other namespace.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** The plan kind: task, roadmap, layer or sheet. */
export const DEX_KIND = defineSearchAttributeKey('DexKind', SearchAttributeType.KEYWORD);
/** dex's state of the run (`waiting`, `budget_exceeded`, … as the `status` query says). */
export const DEX_STATE = defineSearchAttributeKey('DexState', SearchAttributeType.KEYWORD);
/** The repository (its folder name) a task or roadmap works on; a layer's or sheet's name. */
export const DEX_REPO = defineSearchAttributeKey('DexRepo', SearchAttributeType.KEYWORD);
/** The phase (or step) the run is in. */
export const DEX_PHASE = defineSearchAttributeKey('DexPhase', SearchAttributeType.KEYWORD);
/** The gate the run waits at; empty when it waits for nothing. */
export const DEX_WAITING_FOR = defineSearchAttributeKey('DexWaitingFor', SearchAttributeType.KEYWORD);
/** What the run has spent so far, in USD. */
export const DEX_COST_USD = defineSearchAttributeKey('DexCostUsd', SearchAttributeType.DOUBLE);

/** Every dex search attribute, for registering them. */
export const DEX_SEARCH_ATTRIBUTES = [DEX_KIND, DEX_STATE, DEX_REPO, DEX_PHASE, DEX_WAITING_FOR, DEX_COST_USD] as const;

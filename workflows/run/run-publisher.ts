import { setCurrentDetails, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { DETAILS_BYTES, KEYWORD_BYTES, clipText } from '../../core/limits/server-limits';
import type { RunStatus } from '../../core/run/run-types';
import { DEX_COST_USD, DEX_KIND, DEX_PHASE, DEX_REPO, DEX_STATE, DEX_WAITING_FOR } from '../../core/run/search-attributes';
import { runDetails } from './run-details';

/**
 * Keeps what people see of a run outside its `status` query current: dex's search attributes
 * (upserted only when one changed, so history grows by one event per change, not per step) and
 * the current details the Web UI shows.
 */
export class RunPublisher {
  private last = '';

  /** @param repo what `DexRepo` says: the repository's name, or a layer's or sheet's. */
  constructor(private readonly repo: string) {}

  /** Publishes `status`. Never from a query handler: an upsert is a command. */
  publish(status: RunStatus): void {
    // Keyword values and details are cut to what the server keeps (core/limits/server-limits.ts).
    const values = {
      kind: status.kind,
      state: status.state,
      phase: clipText(status.current.phase ?? '', KEYWORD_BYTES),
      waitingFor: clipText(status.waitingFor?.gate ?? '', KEYWORD_BYTES),
      costUsd: Math.round(status.costUsd * 10_000) / 10_000,
    };
    setCurrentDetails(clipText(runDetails(status, workflowInfo().workflowId), DETAILS_BYTES));
    const key = JSON.stringify(values);
    if (key === this.last) return;
    this.last = key;
    upsertSearchAttributes([
      { key: DEX_KIND, value: values.kind },
      { key: DEX_STATE, value: values.state },
      { key: DEX_REPO, value: clipText(this.repo, KEYWORD_BYTES) },
      { key: DEX_PHASE, value: values.phase },
      { key: DEX_WAITING_FOR, value: values.waitingFor },
      { key: DEX_COST_USD, value: values.costUsd },
    ]);
  }
}

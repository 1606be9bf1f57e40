import { setCurrentDetails, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
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
    const values = {
      kind: status.kind,
      state: status.state,
      phase: status.current.phase ?? '',
      waitingFor: status.waitingFor?.gate ?? '',
      costUsd: Math.round(status.costUsd * 10_000) / 10_000,
    };
    setCurrentDetails(runDetails(status, workflowInfo().workflowId));
    const key = JSON.stringify(values);
    if (key === this.last) return;
    this.last = key;
    upsertSearchAttributes([
      { key: DEX_KIND, value: values.kind },
      { key: DEX_STATE, value: values.state },
      { key: DEX_REPO, value: this.repo },
      { key: DEX_PHASE, value: values.phase },
      { key: DEX_WAITING_FOR, value: values.waitingFor },
      { key: DEX_COST_USD, value: values.costUsd },
    ]);
  }
}

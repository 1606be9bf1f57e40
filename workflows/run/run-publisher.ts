import { patched, setCurrentDetails, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { DETAILS_BYTES, KEYWORD_BYTES, clipText } from '../../core/limits/server-limits';
import type { RunStatus } from '../../core/run/run-types';
import { DEX_COST_USD, DEX_KIND, DEX_PHASE, DEX_REPO, DEX_STATE, DEX_WAITING_FOR } from '../../core/run/search-attributes';
import { formatUsd } from '../../core/text/spending';
import { runDetails } from './run-details';

/** The patch from which a run upserts its search attributes only on a change a person sees (docs/performance.md#bounded-history). */
const VISIBLE_PATCH = 'visible-upserts';

/** How often, at most, a change of cost alone is upserted (workflow time). @default 60000 */
const COST_EVERY_MS = 60_000;

/**
 * Keeps what people see of a run outside its `status` query current: dex's search attributes
 * (upserted only when one changed, so history grows by one event per change, not per step) and
 * the current details the Web UI shows. A change of cost alone (as `dex list` shows it) is
 * upserted at most once a minute while the run works, and at once while it waits for a person: a
 * layer spends a little on every target, and an upsert per
 * target was a sixth of its history (docs/performance.md#bounded-history). Every upsert writes
 * the exact cost, so a run's last one (its end) is exact; the status query is always live.
 */
export class RunPublisher {
  private last = '';
  /** Undefined until the first publish; false when replaying a run recorded before the patch. */
  private visibleOnly?: boolean;
  /** What the last upsert wrote, but the cost; the cost as shown; when (workflow time). */
  private lastShown = { rest: '', cost: '', at: 0 };

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
    this.visibleOnly ??= patched(VISIBLE_PATCH);
    if (this.visibleOnly ? !this.seesChange(values) : !this.changed(JSON.stringify(values))) return;
    upsertSearchAttributes([
      { key: DEX_KIND, value: values.kind },
      { key: DEX_STATE, value: values.state },
      { key: DEX_REPO, value: clipText(this.repo, KEYWORD_BYTES) },
      { key: DEX_PHASE, value: values.phase },
      { key: DEX_WAITING_FOR, value: values.waitingFor },
      { key: DEX_COST_USD, value: values.costUsd },
    ]);
  }

  /** Before the patch: any change of the values, the cost to a ten-thousandth, is one. */
  private changed(key: string): boolean {
    if (key === this.last) return false;
    this.last = key;
    return true;
  }

  /**
   * True (and noted) when a person would see a change: of state, phase or gate at once; of cost
   * alone, once a minute while the run works, and at once while it waits for a person (a budget
   * gate is where someone decides on the money: its cost must be the one spent).
   */
  private seesChange(values: { costUsd: number; state: string } & Record<string, unknown>): boolean {
    const { costUsd, ...others } = values;
    const rest = JSON.stringify(others);
    const cost = formatUsd(costUsd);
    const now = Date.now();
    const shown = this.lastShown;
    const working = values.state === 'running';
    if (rest === shown.rest && (cost === shown.cost || (working && now - shown.at < COST_EVERY_MS))) return false;
    this.lastShown = { rest, cost, at: now };
    return true;
  }
}

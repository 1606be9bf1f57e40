import type { LayerCarry } from '../../core/layer/layer-chain';
import type { LayerRunRecord, LayerTargetResult } from '../../core/layer/layer-types';
import type { RunState, RunStatus } from '../../core/run/run-types';
import type { RunControl } from '../run/run-control';
import { RunLedger } from '../run/run-ledger';
import { plural } from '../../core/text/plural';

const TARGET_STATES: Record<LayerTargetResult['status'], RunState> = { success: 'completed', skipped: 'completed', failed: 'failed' };

/** What a layer run has done so far: its ledger, and the targets it finished (kind `layer`). */
export class LayerProgress {
  readonly ledger: RunLedger;
  private current: RunStatus['current'] = {};
  private readonly tasks: { id: string; state: RunState }[] = [];
  /** Earlier runs of the chain: how many of their targets ended well (they are not listed one by one). */
  private earlier?: { done: number; skipped: number; failed: number; runs: number };

  constructor(control: RunControl) {
    this.ledger = new RunLedger('layer', control);
  }

  /**
   * Takes over what the earlier runs of the chain did (docs/layers.md#continue-as-new): their
   * spending, their failed targets by name, the others as counts.
   */
  carry(carried: LayerCarry): void {
    this.ledger.spend(carried.tokens, carried.costUsd);
    for (const id of carried.failed) this.tasks.push({ id, state: 'failed' });
    this.earlier = { done: carried.done, skipped: carried.skipped, failed: carried.failed.length, runs: carried.runs };
    this.ledger.step(`continued as new (run ${carried.runs + 1} of the chain): ${carried.done + carried.skipped + carried.failed.length} targets done before`);
  }

  /** Records which target (or step) the run is at. */
  at(target: string, phase: string): void {
    this.current = { taskId: target, phase };
    this.ledger.step(`${target} ${phase}`);
  }

  /** Counts a finished target. */
  targetDone(r: LayerTargetResult): void {
    this.ledger.spend(r.tokens, r.costUsd);
    this.tasks.push({ id: r.target, state: TARGET_STATES[r.status] });
    const detail = r.error ? ` at ${r.error.node}: ${r.error.message}` : r.reason ? `: ${r.reason}` : `, ${plural(r.insightIds.length, 'insight')}`;
    this.ledger.step(`${r.target} ${r.status}${detail}`);
  }

  /** Marks the run ended with its record. */
  finish(record: LayerRunRecord): void {
    this.current = {};
    this.ledger.end(record.state, record.state === 'failed' ? 'every target failed' : undefined);
    this.ledger.step(`layer ${record.status}: ${plural(record.insightsCreated, 'insight')}, ${record.targetsFailed} failed, ${record.targetsSkipped} skipped`);
  }

  /** The `status` query's answer. */
  status(): RunStatus {
    return this.ledger.status(this.current, { tasks: this.tasks, ...(this.earlier ? { earlier: this.earlier } : {}) });
  }
}

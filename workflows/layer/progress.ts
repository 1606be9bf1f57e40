import type { LayerRunRecord, LayerTargetResult } from '../../core/layer-types';
import type { RunState, RunStatus, TokenUsage } from '../../core/types';
import { addUsage, ZERO_USAGE } from '../../core/usage';
import type { RunControl } from '../run/run-control';

/** How many of the latest steps the status keeps. */
const RECENT_STEPS = 20;

const TARGET_STATES: Record<LayerTargetResult['status'], RunState> = { success: 'completed', skipped: 'completed', failed: 'failed' };

/** What a layer run has done so far: the source of its `status` query (kind `layer`). */
export class LayerProgress {
  private state: RunState = 'running';
  private current: RunStatus['current'] = {};
  private tokens: TokenUsage = ZERO_USAGE;
  private costUsd = 0;
  private readonly tasks: { id: string; state: RunState }[] = [];
  private recent: { seq: number; text: string }[] = [];
  private seq = 0;
  private error?: string;

  constructor(private readonly control: RunControl) {}

  /** Records which target (or step) the run is at. */
  at(target: string, phase: string): void {
    this.current = { taskId: target, phase };
    this.step(`${target} ${phase}`);
  }

  /** Adds a numbered step for watchers. */
  step(text: string): void {
    this.recent = [...this.recent.slice(-(RECENT_STEPS - 1)), { seq: ++this.seq, text }];
  }

  /** Counts a finished target. */
  targetDone(r: LayerTargetResult): void {
    this.tokens = addUsage(this.tokens, r.tokens);
    this.costUsd += r.costUsd;
    this.tasks.push({ id: r.target, state: TARGET_STATES[r.status] });
    const detail = r.error ? ` at ${r.error.node}: ${r.error.message}` : r.reason ? `: ${r.reason}` : `, ${r.insightIds.length} insight(s)`;
    this.step(`${r.target} ${r.status}${detail}`);
  }

  /** Marks the run ended with its record. */
  finish(record: LayerRunRecord): void {
    this.state = record.state;
    this.current = {};
    if (record.state === 'failed') this.error = 'every target failed';
    this.step(`layer ${record.status}: ${record.insightsCreated} insight(s), ${record.targetsFailed} failed, ${record.targetsSkipped} skipped`);
  }

  /** The `status` query's answer. */
  status(): RunStatus {
    const live = this.state === 'running';
    const state: RunState = live && this.control.paused ? 'paused' : this.state;
    return {
      kind: 'layer',
      state,
      waitingFor: this.control.waitingFor,
      current: this.current,
      tokens: this.tokens,
      costUsd: this.costUsd,
      tasks: this.tasks,
      recent: this.recent,
      ...(this.error ? { error: this.error } : {}),
    };
  }
}

import { continueAsNew } from '@temporalio/workflow';
import type { LayerCarry } from '../../core/layer/layer-chain';
import { layerChainResultsId, layerChainTargetsId } from '../../core/run/ids';
import { addUsage, addUsd, ZERO_USAGE } from '../../core/run/usage';
import type { LayerInput, LayerTargetResult } from '../../core/layer/layer-types';
import type { LayerActivities } from './activities';
import type { TargetPart } from './children';
import { chainKey, RunChain } from '../run/chain';

/** The patch that lets a layer run continue as new; runs recorded before it never do (docs/layers.md#continue-as-new). */
const CHAIN_PATCH = 'layer-continue-as-new';

/**
 * One run of a layer run's chain (docs/layers.md#continue-as-new): it says when the run should
 * start no more targets, so its history stays under its limit, and hands the targets left to the
 * next run, by store reference. The run drains first: children in flight end in the run that
 * started them, so their results are never split across two histories.
 */
export class LayerChain extends RunChain<LayerCarry> {
  private bytes = 0;

  constructor(
    private readonly input: LayerInput,
    private readonly acts: LayerActivities,
  ) {
    super(CHAIN_PATCH, input);
  }

  /** The earlier runs' result artifacts: none unless the run continued as new. */
  get chunks(): string[] {
    return this.carried?.chunks ?? [];
  }

  /** The first target (or resume point) this run starts with. */
  get next(): number {
    return this.carried?.next ?? 0;
  }

  /** The targets left for a continued run: from the stored list, or a resumed run's points. */
  async targetsLeft(): Promise<string[]> {
    return this.acts.layerTargetsLeft({ id: layerChainTargetsId(chainKey()), from: this.next }, `${this.input.layer.name} · targets left`);
  }

  /** Counts a finished target's result toward what this run will carry. */
  noteResult(result: LayerTargetResult): void {
    this.bytes += JSON.stringify(result).length;
  }

  /** True when the run should start no more targets (core/run/history-limit.ts historyFull). */
  full(running: number, started: number): boolean {
    return this.historyFull(running, started, this.bytes);
  }

  /**
   * Stores this run's results (and, from the first run, every target) and continues as new with
   * the counters and references the next run needs. `parts` are this run's, `results` a prefix of
   * them; `run` the chain's start and clock, and the prompt tokens its targets sent so far.
   */
  async handOver(parts: TargetPart[], results: LayerTargetResult[], run: { startedAt: string; now: number; promptTokens: number }): Promise<never> {
    const key = chainKey();
    const runs = this.run;
    const id = layerChainResultsId(key, runs);
    const storeTargets = !this.carried && !this.input.resume;
    await this.acts.keepLayerResults(
      { id, results, ...(storeTargets ? { targets: { id: layerChainTargetsId(key), keys: parts.map((p) => p.target) } } : {}) },
      `${this.input.layer.name} · keep ${results.length} results`,
    );
    const before = this.carried;
    const carried: LayerCarry = {
      runs,
      startedAt: run.startedAt,
      now: run.now,
      next: this.next + results.length,
      chunks: [...this.chunks, id],
      tokens: results.reduce((sum, r) => addUsage(sum, r.tokens), before?.tokens ?? ZERO_USAGE),
      costUsd: addUsd(before?.costUsd ?? 0, ...results.map((r) => r.costUsd)),
      promptTokens: run.promptTokens,
      done: (before?.done ?? 0) + results.filter((r) => r.status === 'success').length,
      skipped: (before?.skipped ?? 0) + results.filter((r) => r.status === 'skipped').length,
      failed: [...(before?.failed ?? []), ...results.filter((r) => r.status === 'failed').map((r) => r.target)],
    };
    return continueAsNew<(input: LayerInput) => Promise<unknown>>({ ...this.input, carried });
  }
}

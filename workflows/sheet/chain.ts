import { continueAsNew } from '@temporalio/workflow';
import { sheetChainChunkId } from '../../core/run/ids';
import { plural } from '../../core/text/plural';
import type { SheetCarry, SheetInput } from '../../core/sheet/sheet-types';
import { chainKey, RunChain } from '../run/chain';
import type { RunControl } from '../run/run-control';
import type { SheetActivities } from './activities';
import type { SheetProgress } from './progress';

/** The patch that lets a sheet continue as new; runs recorded before it never do (docs/sheets.md#continue-as-new). */
const CHAIN_PATCH = 'sheet-continue-as-new';

/**
 * One run of a sheet's chain (docs/sheets.md#continue-as-new): it says when the run should start
 * no more statements (or undos), so its history stays under its limit, and hands what ended in it
 * to the next run, by store reference. The run drains first: statements in flight end in the run
 * that started them.
 */
export class SheetChain extends RunChain<SheetCarry> {
  /** Statements and undos this run started. */
  private started = 0;

  constructor(
    private readonly input: SheetInput,
    private readonly acts: SheetActivities,
  ) {
    super(CHAIN_PATCH, input);
  }

  /** The phase this run starts at: the first unless an earlier run of the chain stopped in a later one. */
  get firstPhase(): number {
    return this.carried?.phase ?? 0;
  }

  /** In a continued run, takes over from the store what the earlier runs did, and whether the sheet was paused. */
  async takeOver(progress: SheetProgress, control: RunControl): Promise<void> {
    const carried = this.carried;
    if (!carried) return;
    const earlier = await this.acts.sheetChainState({ chunks: carried.chunks }, `${this.input.name} · earlier runs`);
    progress.carry(carried, earlier);
    if (carried.paused) control.paused = true;
  }

  /** True when the run should start no more statements (core/run/history-limit.ts historyFull); else counts the one it starts. */
  full(running: number, progress: SheetProgress): boolean {
    if (this.historyFull(running, this.started, progress.chunkBytes)) return true;
    this.started++;
    return false;
  }

  /**
   * Stores what ended in this run and continues as new with the counters and references the next
   * run needs; it starts at `phase`.
   */
  async handOver(progress: SheetProgress, control: RunControl, phase: number): Promise<never> {
    const runs = this.run;
    const id = sheetChainChunkId(chainKey(), runs);
    const chunk = progress.chunk();
    await this.acts.keepSheetChunk({ id, chunk }, `${this.input.name} · keep ${plural(chunk.outcomes.length, 'statement')}`);
    const { tokens, costUsd } = progress.ledger.spent();
    const carried: SheetCarry = {
      runs,
      phase,
      chunks: [...(this.carried?.chunks ?? []), id],
      tokens,
      costUsd,
      ...(control.paused ? { paused: true as const } : {}),
    };
    return continueAsNew<(input: SheetInput) => Promise<unknown>>({ ...this.input, carried });
  }
}

import { continueAsNew } from '@temporalio/workflow';
import { EVENTS_PER_ROADMAP_TASK } from '../../core/run/history-limit';
import type { RoadmapCarried, RoadmapInput, RoadmapTaskState } from '../../core/roadmap/roadmap-types';
import type { Budget } from '../../core/run/run-types';
import { RunChain } from '../run/chain';

/** The patch that bounds a roadmap run's history by its length; runs recorded before it never check (docs/roadmaps.md#long-roadmaps). */
const CHAIN_PATCH = 'roadmap-history-limit';

/**
 * One run of a roadmap's chain (docs/roadmaps.md#long-roadmaps): besides `continueAsNewAfterTasks`
 * and Temporal's suggestion, it says when the run should start no more tasks because its history,
 * with room for the tasks in flight and its end, would pass its limit. Once it has said so the run
 * drains (tasks in flight end and land in the run that started them) and continues as new.
 */
export class RoadmapChain extends RunChain<RoadmapCarried> {
  /** Tasks this run started. */
  private started = 0;
  private stopped = false;

  constructor(private readonly input: RoadmapInput) {
    super(CHAIN_PATCH, input, EVENTS_PER_ROADMAP_TASK);
  }

  /** This run's number in the chain, 1 for the first. */
  get runs(): number {
    return this.run;
  }

  /** True once the history check stopped the run starting tasks: it stays so, the run drains and continues as new. */
  get full(): boolean {
    return this.stopped;
  }

  /**
   * Before the run starts a task, with `running` in flight: false when its history is full
   * (core/run/history-limit.ts historyFull), else true, counting the task. Every task's state
   * crosses to the next run whenever the run continues, so what it carries does not count.
   */
  mayStart(running: number): boolean {
    this.stopped ||= this.historyFull(running, this.started, 0);
    if (!this.stopped) this.started++;
    return !this.stopped;
  }

  /** Continues as new with every task's state and what is left of the run budget. */
  handOver(tasks: RoadmapTaskState[], runBudget: Budget | undefined): Promise<never> {
    return continueAsNew<(input: RoadmapInput) => Promise<unknown>>({ ...this.input, carried: { tasks, runs: this.runs, runBudget } });
  }
}

import { ParentClosePolicy, startChild, workflowInfo } from '@temporalio/workflow';
import { classifyChildFailure, type ChildEnd } from '../run/child-end';
import { roadmapTaskWorkflowId } from '../../core/run/ids';
import { phasesFor } from '../../core/task/phases';
import { modelsForWeight } from '../../core/run/model-choice';
import { agentsForWeight } from '../../core/task/agent-engine';
import { withAttemptCount } from '../../core/task/attempts';
import type { RoadmapTask } from '../../core/roadmap/roadmap';
import type { RoadmapInput } from '../../core/roadmap/roadmap-types';
import type { Budget } from '../../core/run/run-types';
import type { TaskInput } from '../../core/task/task-types';
import type { taskWorkflow } from '../task/workflow';
import { taskMemoryRef } from './run-memory';
import { SHORT_WORKFLOW_TASK_TIMEOUT } from '../../core/run/definitions';
import { SUMMARY_BYTES, clipText } from '../../core/limits/server-limits';

/** `agents` as an input field, absent when no phase has an agent of its own (so inputs of runs without it stay the same). */
const agentsOf = (agents: TaskInput['agents']) => (agents ? { agents } : {});

/**
 * The roadmap's child `taskWorkflow`s: builds each one's input (its share of the budgets),
 * starts it under the id the client's data gives, and collects how each ended in an inbox the
 * workflow drains; `condition` wakes the workflow when something arrives.
 */
export class RoadmapChildren {
  private readonly inbox: ChildEnd[] = [];

  constructor(private readonly input: RoadmapInput) {}

  /** The workflow id of task `taskId`'s run: `task-<repo>-<taskId>-<roadmap hash>` (docs/roadmaps.md). */
  idOf(taskId: string): string {
    return roadmapTaskWorkflowId(this.input.repoName, taskId, this.input.roadmapHash);
  }

  /** Something ended since the last `takeEnded`. */
  get anyEnded(): boolean {
    return this.inbox.length > 0;
  }

  /** The ends that arrived, oldest first; the inbox is empty afterwards. */
  takeEnded(): ChildEnd[] {
    return this.inbox.splice(0);
  }

  /** Starts task `task` under the run budget, given what the run has `spent`; returns its phases. */
  async start(task: RoadmapTask, runBudget: Budget | undefined, spent: { costUsd: number; tokens: number }): Promise<string[]> {
    const input = this.inputFor(task, runBudget, spent);
    const handle = await startChild<typeof taskWorkflow>('taskWorkflow', {
      workflowTaskTimeout: SHORT_WORKFLOW_TASK_TIMEOUT,
      workflowId: this.idOf(task.id),
      staticSummary: clipText(`${task.id}: ${task.title}${task.depends.length ? ` (after ${task.depends.join(', ')})` : ''}`, SUMMARY_BYTES),
      args: [input],
      taskQueue: workflowInfo().taskQueue,
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
    });
    handle.result().then(
      (result) => this.inbox.push({ id: task.id, result }),
      (err: unknown) => this.inbox.push(classifyChildFailure(task.id, err)),
    );
    return input.phases!;
  }

  /**
   * A task's input: the roadmap's defaults, its phases by weight or type, its own budget and,
   * under a run budget in USD, grants from the roadmap (./run-grants.ts) for its model calls;
   * a run budget in tokens is what is left of it when the task starts.
   */
  private inputFor(task: RoadmapTask, runBudget: Budget | undefined, spent: { costUsd: number; tokens: number }): TaskInput {
    const { taskBudget } = this.input;
    const leftTokens = runBudget?.tokens !== undefined ? Math.max(0, runBudget.tokens - spent.tokens) : undefined;
    const tokens = [taskBudget?.tokens, leftTokens].filter((v): v is number => v !== undefined);
    const limits = { ...(taskBudget?.usd !== undefined ? { usd: taskBudget.usd } : {}), ...(tokens.length ? { tokens: Math.min(...tokens) } : {}) };
    const budget = Object.keys(limits).length ? limits : undefined;
    // Best of N (docs/attempts.md#roadmaps): the line's `(attempts: N)` over the config's; set only when asked, so inputs of runs without it stay the same.
    const { attempts: configured, ...defaults } = this.input.taskDefaults;
    const attempts = withAttemptCount(configured, task.attempts);
    return {
      ...defaults,
      taskId: task.id,
      title: task.title,
      description: task.description,
      phases: phasesFor(task, this.input.phasesByWeight),
      models: modelsForWeight(this.input.taskDefaults.models, this.input.modelsByWeight, task.weight),
      ...agentsOf(agentsForWeight(this.input.taskDefaults.agents, this.input.agentsByWeight, task.weight)),
      type: task.type,
      budget,
      ...(runBudget?.usd !== undefined ? { runBudgeted: true } : {}),
      ...taskMemoryRef(this.input),
      ...(attempts ? { attempts } : {}),
    };
  }
}

import { workflowInfo } from '@temporalio/workflow';
import { TYPE_PATTERNS } from '../../core/task/phases';
import type { TaskInput } from '../../core/task/task-types';
import type { RunControl } from '../run/run-control';
import type { HostActivities } from './activities';
import type { TaskProgress } from './progress';

/** What the run does after an `escalate`: the remaining steps were planned again, or a person decided. */
type AfterEscalation = { replanned: string[] } | { person: 'approve'; note?: string } | { person: 'reject'; reason: string };

/**
 * The planner of one task (docs/roadmaps.md#the-planner-and-escalate): with `planner` set, a
 * task without a type gets one from a cheap model before its first phase, and the first
 * `escalate` of a step plans the remaining steps again; a later one asks a person at the
 * `escalate` gate. Without `planner`, every `escalate` asks a person.
 */
export class TaskPlanner {
  private plans = 0;
  private replanned = false;

  constructor(
    private readonly input: TaskInput,
    private readonly acts: HostActivities,
    private readonly control: RunControl,
    private readonly progress: TaskProgress,
  ) {}

  /** The phases a task starts with: its own, or those of the type the planner chose. */
  async firstPhases(phases: readonly string[]): Promise<readonly string[]> {
    if (!this.input.planner || this.input.type) return phases;
    const type = await this.choose();
    return type ? TYPE_PATTERNS[type] : phases;
  }

  /** After step `phases[index]` escalated with `reason`: the new remaining steps, or a person's decision. */
  async escalated(phases: readonly string[], index: number, reason: string): Promise<AfterEscalation> {
    const step = phases[index];
    if (this.input.planner && !this.replanned) {
      this.replanned = true;
      const type = await this.choose({ done: phases.slice(0, index), step, reason });
      if (type) return { replanned: TYPE_PATTERNS[type] };
    }
    const decision = await this.control.waitAt('escalate', {}, { taskId: this.input.taskId, reason: `the ${step} step does not fit: ${reason}` });
    return decision.action === 'approve' ? { person: 'approve', note: decision.note } : { person: 'reject', reason: decision.reason };
  }

  /** Asks the planner for a type; undefined when it chose none. */
  private async choose(escalation?: { done: string[]; step: string; reason: string }): Promise<string | undefined> {
    const { input, progress } = this;
    const { workflowId } = workflowInfo();
    this.plans++;
    progress.at({ phase: 'plan', activity: escalation ? 're-plan' : 'plan' });
    const plan = await this.acts.classifyTask({
      transcriptId: `${workflowId}/plan/${this.plans}`,
      taskId: input.taskId,
      title: input.title,
      description: input.description,
      ...(escalation ? { escalation } : {}),
      model: input.planner!.model,
      llm: input.llm,
      cassetteScope: workflowInfo().root?.workflowId ?? workflowId,
    }, `plan${escalation ? ' again' : ''} · model ${input.planner!.model}`);
    progress.ledger.spend(plan.usage, plan.costUsd);
    await progress.parent.spent();
    progress.ledger.step(`planned: ${plan.type} (${plan.reason})`);
    if (plan.type === 'none') return undefined;
    progress.planned(plan.type);
    return plan.type;
  }
}

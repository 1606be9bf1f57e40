/**
 * The `classifyTask` activity: the planner (docs/roadmaps.md#the-planner-and-escalate). A cheap
 * model picks a task's type — whose step pattern becomes its phases — from its title and
 * description, or `none` to keep the phases of its weight; after an escalation it is told what
 * the steps so far found.
 */
import { TYPE_PATTERNS } from '../../core/task/phases';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import type { LlmSpec, TokenUsage } from '../../core/run/run-types';
import type { ActivityDeps } from '../deps';
import { forcedToolCalls, type AnswerTool } from '../model/forced-tool-call';

/** The cassette phase (and `x-dex-phase`) of planner calls. */
const PLAN_PHASE = 'plan';

const TYPES = [...Object.keys(TYPE_PATTERNS), 'none'];

const TYPE_TOOL: AnswerTool = {
  name: 'choose_task_type',
  description: 'The kind of work this task is.',
  input_schema: {
    type: 'object',
    properties: {
      type: { type: 'string', enum: TYPES, description: 'the task type whose steps fit the work; none when no pattern fits' },
      reason: { type: 'string', description: 'why, in one sentence' },
    },
    required: ['type', 'reason'],
  },
};

const SYSTEM = 'You plan coding tasks. Choose the task type whose steps fit the work; answer only through the choose_task_type tool.';

/** Input of `classifyTask`. */
interface ClassifyInput {
  transcriptId: string;
  taskId: string;
  title: string;
  description: string;
  /** After an escalation: the steps done, the step that escalated and why. */
  escalation?: { done: string[]; step: string; reason: string };
  model: string;
  llm: LlmSpec;
  cassetteScope: string;
}

/** The planner's choice and what it cost. */
interface TaskPlan {
  type: string;
  reason: string;
  usage: TokenUsage;
  costUsd: number;
}

/** Builds the planner activity over the host's dependencies. */
export const createClassifyActivities = (deps: ActivityDeps) => {
  const forced = forcedToolCalls(deps);
  return {
    async classifyTask(input: ClassifyInput): Promise<TaskPlan> {
      const answer = await forced({
        transcriptId: input.transcriptId,
        taskId: input.taskId,
        phase: PLAN_PHASE,
        model: input.model,
        llm: input.llm,
        cassetteScope: input.cassetteScope,
        system: SYSTEM,
        tool: TYPE_TOOL,
        prompt: async () => planPrompt(input),
      });
      const { type, reason } = answer.input;
      if (typeof type !== 'string' || !TYPES.includes(type) || typeof reason !== 'string') {
        throw nonRetryable(FAILURE.ModelBadResponse, `the planner answered choose_task_type without one of ${TYPES.join(', ')} and a reason`);
      }
      return { type, reason, usage: answer.usage, costUsd: answer.costUsd };
    },
  };
};

function planPrompt(input: ClassifyInput): string {
  const types = Object.entries(TYPE_PATTERNS).map(([type, steps]) => `- ${type}: ${steps.join(' → ')}`).join('\n');
  const escalated = input.escalation
    ? `\n\n# The plan so far did not fit\nSteps done: ${input.escalation.done.join(', ') || 'none'}. The ${input.escalation.step} step escalated: ${input.escalation.reason}\nChoose the type for the rest of the work.`
    : '';
  return `# Task ${input.taskId}: ${input.title}\n\n${input.description.trim() || '(no description beyond the title)'}\n\n# Task types and their steps\n${types}\n- none: keep the phases of the task's weight${escalated}`;
}

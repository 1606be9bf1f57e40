/** The fake model the benchmark pipelines call: it answers at once, or after `latencyMs`. */
import { Context } from '@temporalio/activity';
import type { DexStore } from '../store/dex-store';

/** One step's input: the text so far and how long the fake model takes to answer. */
export interface ModelStepInput {
  step: number;
  prompt: string;
  latencyMs: number;
}

/** One step's output: a short answer and its token count, as a model reply would carry. */
export interface ModelStepOutput {
  text: string;
  tokens: number;
}

/** Answers like a model would, without one: deterministic, tiny, and as slow as asked. */
export async function fakeModel(input: ModelStepInput): Promise<ModelStepOutput> {
  if (input.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, input.latencyMs));
  return { text: `step ${input.step} read ${input.prompt.length} chars`, tokens: 12 + input.step };
}

/** Steps answered in one activity: from `from` on, while each starts within `forMs` of the activity's start. */
export interface ModelStepsInput {
  /** Where the answers are stored, as a dex transcript. */
  runKey: string;
  from: number;
  steps: number;
  prompt: string;
  latencyMs: number;
  forMs: number;
}

/** The last answer, and the step to go on from (`steps` when all are answered). */
export interface ModelStepsOutput {
  reply: ModelStepOutput;
  next: number;
}

/**
 * The benchmark's activities; `onStart` lets a benchmark see when a step begins (B5); `store` keeps
 * the answers of `modelSteps`.
 */
export const createBenchActivities = (hooks: { onStart?: (step: number) => void; store?: DexStore } = {}) => ({
  /** One pipeline step: a fake model call. */
  async modelStep(input: ModelStepInput): Promise<ModelStepOutput> {
    hooks.onStart?.(input.step);
    return fakeModel(input);
  },

  /**
   * Several dependent steps in one activity, as a dex model call answers reading turns
   * (activities/model/reading-turns.ts): each answer is stored before the next step is asked, an
   * answer already stored is reused, and the activity heartbeats after each step.
   */
  async modelSteps(input: ModelStepsInput): Promise<ModelStepsOutput> {
    const { store } = hooks;
    if (!store) throw new Error('modelSteps needs the bench worker\'s store');
    const started = Date.now();
    let reply: ModelStepOutput = { text: input.prompt, tokens: 0 };
    let step = input.from;
    for (; step < input.steps && (step === input.from || Date.now() - started < input.forMs); step++) {
      const stored = await store.getMessage(input.runKey, step);
      reply = stored ? (stored.content as ModelStepOutput) : await fakeModel({ step, prompt: reply.text, latencyMs: input.latencyMs });
      if (!stored) await store.appendMessage(input.runKey, step, 'assistant', reply);
      Context.current().heartbeat(step);
    }
    return { reply, next: step };
  },
});

/** The benchmark's activities, as the bench workflows see them (import this type only). */
export type BenchActivities = ReturnType<typeof createBenchActivities>;

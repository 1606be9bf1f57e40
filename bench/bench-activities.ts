/** The fake model the benchmark pipelines call: it answers at once, or after `latencyMs`. */

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

/** The benchmark's activities; `onStart` lets a benchmark see when a step begins (B5). */
export const createBenchActivities = (hooks: { onStart?: (step: number) => void } = {}) => ({
  /** One pipeline step: a fake model call. */
  async modelStep(input: ModelStepInput): Promise<ModelStepOutput> {
    hooks.onStart?.(input.step);
    return fakeModel(input);
  },
});

/** The benchmark's activities, as the bench workflows see them (import this type only). */
export type BenchActivities = ReturnType<typeof createBenchActivities>;

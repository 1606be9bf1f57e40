import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { randomUUID } from 'node:crypto';
import { fakeModel } from './bench-activities';

const PipelineState = Annotation.Root({
  text: Annotation<string>,
  tokens: Annotation<number>,
});

/** The same N-step pipeline in LangGraph JS: a chain of N nodes, checkpointed to SQLite after each. */
export function langGraphPipeline(steps: number, dbPath: string, latencyMs = 0) {
  // The graph's node names are only known at run time, so the builder is typed loosely.
  const graph = new StateGraph(PipelineState) as unknown as StateGraph<typeof PipelineState.spec, any, any, string>;
  for (let step = 0; step < steps; step++) {
    graph.addNode(`step${step}`, async (state: typeof PipelineState.State) => fakeModel({ step, prompt: state.text, latencyMs }));
  }
  graph.addEdge(START, 'step0');
  for (let step = 1; step < steps; step++) graph.addEdge(`step${step - 1}`, `step${step}`);
  graph.addEdge(`step${steps - 1}`, END);
  const app = graph.compile({ checkpointer: SqliteSaver.fromConnString(dbPath) });
  return {
    /** One run on a fresh thread, as a new job would start. */
    run: () => app.invoke({ text: 'start', tokens: 0 }, { configurable: { thread_id: randomUUID() }, recursionLimit: steps + 10 }),
  };
}

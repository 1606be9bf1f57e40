import { defineQuery, proxyActivities, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { BenchActivities, ModelStepOutput } from '../bench-activities';
import { localIoPolicy } from '../../workflows/run/policies';
import { RunControl } from '../../workflows/run/run-control';

// Bench-only workflows, bundled by the benchmark's own worker: never registered in workflows/index.ts.
const remote = proxyActivities<BenchActivities>(localIoPolicy);
const local = proxyLocalActivities<BenchActivities>(localIoPolicy);

/** An N-step pipeline: each step is a fake model call, as a regular or a local activity. */
export interface PipelineInput {
  steps: number;
  local: boolean;
  latencyMs: number;
  /** Steps go on in one activity for up to this long, as dex's reading turns do (B2); absent, an activity each. */
  chainMs?: number;
}

/** Runs the steps in order, each reading the previous step's answer (B1, B2). */
export async function pipelineWorkflow(input: PipelineInput): Promise<ModelStepOutput> {
  if (input.chainMs !== undefined) return chainedPipeline(input, input.chainMs);
  const { modelStep } = input.local ? local : remote;
  let reply: ModelStepOutput = { text: 'start', tokens: 0 };
  for (let step = 0; step < input.steps; step++) {
    reply = await modelStep({ step, prompt: reply.text, latencyMs: input.latencyMs });
  }
  return reply;
}

/** The same steps, as many in one activity as fit in `forMs` (activities/model/reading-turns.ts). */
async function chainedPipeline(input: PipelineInput, forMs: number): Promise<ModelStepOutput> {
  const runKey = workflowInfo().workflowId;
  let done = { reply: { text: 'start', tokens: 0 }, next: 0 };
  while (done.next < input.steps) done = await remote.modelSteps({ runKey, from: done.next, steps: input.steps, prompt: done.reply.text, latencyMs: input.latencyMs, forMs });
  return done.reply;
}

/** Whether the run waits at its gate. */
export const waitingQuery = defineQuery<boolean>('waiting');

/** Waits at an approve gate (dex's RunControl, as taskWorkflow uses it), then runs one step (B5). */
export async function gatedStepWorkflow(): Promise<ModelStepOutput> {
  const control = new RunControl();
  setHandler(waitingQuery, () => control.waitingFor !== null);
  await control.waitAt('bench');
  return remote.modelStep({ step: 1, prompt: 'approved', latencyMs: 0 });
}

/** What the history looked like when the server first suggested continue-as-new. */
export interface HistoryProbe {
  steps: number;
  historyLength: number;
  historySize: number;
  suggested: boolean;
}

/**
 * Runs activities in batches of `batch` until the server suggests continue-as-new, or
 * `maxSteps` (B4); batches keep the probe quick, and the answer is exact to one batch.
 */
export async function historyProbeWorkflow(maxSteps: number, batch = 20): Promise<HistoryProbe> {
  let steps = 0;
  while (steps < maxSteps && !workflowInfo().continueAsNewSuggested) {
    const first = steps;
    steps += batch;
    await Promise.all(Array.from({ length: batch }, (_, i) => remote.modelStep({ step: first + i, prompt: '', latencyMs: 0 })));
  }
  const { historyLength, historySize, continueAsNewSuggested } = workflowInfo();
  return { steps, historyLength, historySize, suggested: continueAsNewSuggested };
}

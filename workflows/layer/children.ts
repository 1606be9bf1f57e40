import { executeChild, isCancellation } from '@temporalio/workflow';
import { layerTargetWorkflowId } from '../../core/run/ids';
import { emptyTargetResult, GLOBAL_TOPIC } from '../../core/layer/layer-run';
import type { LayerInput, LayerNode, LayerTargetResult, TargetContext } from '../../core/layer/layer-types';
import type { LayerProgress } from './progress';
import { layerTargetWorkflow } from './target-workflow';
import { SHORT_WORKFLOW_TASK_TIMEOUT } from '../run/policies';
import { SUMMARY_BYTES, clipText } from '../../core/limits/server-limits';

/** Which nodes a target runs: `nodes` are its part of the layer from index `firstIndex` on. */
export interface TargetPart {
  target: string;
  nodes: LayerNode[];
  firstIndex: number;
  paysSalience: boolean;
  seed?: TargetContext;
}

/**
 * Starts a layer run's targets as child workflows and keeps the run-wide count of prompt tokens
 * sent, so each child knows what is left of `max_tokens_per_run` (docs/layers.md#context-budgets;
 * a layer with that budget runs its targets one after another, core/parsing/layer-file.ts).
 */
export class TargetChildren {
  /** Prompt tokens the run's targets sent so far, earlier runs of its chain included (docs/layers.md#continue-as-new). */
  promptTokens: number;

  constructor(
    private readonly runId: string,
    private readonly input: LayerInput,
    private readonly now: number,
    private readonly progress: LayerProgress,
  ) {
    this.promptTokens = input.carried?.promptTokens ?? 0;
  }

  /** Runs one target's part; a child that could not run at all fails the target at its first node. */
  async run(part: TargetPart): Promise<LayerTargetResult> {
    const { runId, input } = this;
    const { target, nodes, firstIndex, paysSalience, seed } = part;
    const perRun = input.layer.context.maxTokensPerRun;
    this.progress.at(target, 'running');
    let result: LayerTargetResult;
    try {
      const ended = await executeChild(layerTargetWorkflow, {
        workflowTaskTimeout: SHORT_WORKFLOW_TASK_TIMEOUT,
        workflowId: layerTargetWorkflowId(runId, target),
        staticSummary: clipText(`${target === GLOBAL_TOPIC ? 'the global part' : `target ${target}`} of layer ${input.layer.name}`, SUMMARY_BYTES),
        args: [
          {
            runId,
            target,
            nodes,
            firstIndex,
            hostQueue: input.hostQueue,
            llm: input.llm,
            defaultModel: input.defaultModel,
            layerName: input.layer.name,
            salience: input.layer.salience,
            context: input.layer.context,
            ...(perRun !== undefined ? { runTokensLeft: perRun - this.promptTokens } : {}),
            now: this.now,
            paysSalience,
            ...(seed ? { seed } : {}),
            ...(input.templates ? { templates: input.templates } : {}),
          },
        ],
      });
      // A child an earlier release ran (before an upgrade) returns no counts it did not keep then.
      result = { ...emptyTargetResult(target), ...ended };
    } catch (err) {
      if (isCancellation(err)) throw err;
      const failedAt = { index: firstIndex, node: nodes[0]?.name ?? '', context: seed ?? {} };
      result = { ...emptyTargetResult(target), status: 'failed', error: { node: '(target workflow)', message: (err as Error).message }, failedAt };
    }
    this.promptTokens += result.promptTokens;
    this.progress.targetDone(result);
    return result;
  }
}

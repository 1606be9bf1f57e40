import { executeChild, isCancellation, patched, workflowInfo } from '@temporalio/workflow';
import { layerTargetWorkflowId } from '../../core/run/ids';
import { innermostMessage } from '../../core/run/failure-message';
import { emptyTargetResult } from '../../core/layer/layer-run';
import { batchSummary, targetsPerActivity } from '../../core/layer/target-batches';
import type { LayerInput, LayerNode, LayerTargetInput, LayerTargetResult, TargetContext } from '../../core/layer/layer-types';
import type { LayerProgress } from './progress';
import type { LayerActivities } from './activities';
import { layerTargetWorkflow } from './target-workflow';
import { SHORT_WORKFLOW_TASK_TIMEOUT } from '../../core/run/definitions';
import { SUMMARY_BYTES, clipText } from '../../core/limits/server-limits';

/** Which nodes a target runs: `nodes` are its part of the layer from index `firstIndex` on. */
export interface TargetPart {
  target: string;
  nodes: LayerNode[];
  firstIndex: number;
  paysSalience: boolean;
  seed?: TargetContext;
}

/** The patch that runs targets in activities; runs recorded before it start a child workflow per target (docs/layers.md#where-a-target-runs). */
const TARGET_ACTIVITY_PATCH = 'layer-target-activity';

/**
 * Runs a layer run's targets, a few to an activity or, when the layer asks for it, each in a child
 * workflow of its own (docs/layers.md#where-a-target-runs), and keeps the run-wide count of prompt tokens
 * sent, so each target knows what is left of `max_tokens_per_run` (docs/layers.md#context-budgets;
 * a layer with that budget runs its targets one after another, core/parsing/layer-file.ts).
 */
export class TargetChildren {
  /** Prompt tokens the run's targets sent so far, earlier runs of its chain included (docs/layers.md#continue-as-new). */
  promptTokens: number;
  /** False for a layer that asks for a child workflow per target, and when replaying a run recorded before targets ran in activities. */
  private readonly asActivities: boolean;

  constructor(
    private readonly runId: string,
    private readonly input: LayerInput,
    private readonly now: number,
    private readonly progress: LayerProgress,
    private readonly acts: LayerActivities,
  ) {
    this.promptTokens = input.carried?.promptTokens ?? 0;
    this.asActivities = !input.layer.targetWorkflows && patched(TARGET_ACTIVITY_PATCH);
  }

  /** How many targets go to one activity (core/layer/target-batches.ts); 1 for child workflows. */
  get batchSize(): number {
    return this.asActivities ? targetsPerActivity(this.input.layer.concurrency ?? 1) : 1;
  }

  /** Runs one batch of targets at once; a target that could not run at all (its activity timed out, its child failed) fails at its first node. */
  async run(parts: TargetPart[]): Promise<LayerTargetResult[]> {
    for (const part of parts) this.progress.at(part.target, 'running');
    const inputs = parts.map((part) => this.inputOf(part));
    let results: LayerTargetResult[];
    if (this.asActivities) {
      const summary = clipText(batchSummary(parts.map((p) => p.target), this.input.layer.name), SUMMARY_BYTES);
      results = await this.acts
        .runLayerTargets(inputs, summary)
        .then((ended) => ended.map((r) => ({ ...emptyTargetResult(r.target), ...r })))
        .catch((err: unknown) => parts.map((part) => this.failed(part, { node: '(target activity)', message: innermostMessage(err) }, err)));
    } else {
      results = await Promise.all(parts.map((part, i) => this.child(part, inputs[i])));
    }
    for (const result of results) {
      this.promptTokens += result.promptTokens;
      this.progress.targetDone(result);
    }
    return results;
  }

  /** One target in a child workflow of its own. */
  private async child(part: TargetPart, args: LayerTargetInput): Promise<LayerTargetResult> {
    try {
      const ended = await executeChild(layerTargetWorkflow, {
        workflowTaskTimeout: SHORT_WORKFLOW_TASK_TIMEOUT,
        workflowId: layerTargetWorkflowId(this.runId, part.target),
        staticSummary: clipText(batchSummary([part.target], this.input.layer.name), SUMMARY_BYTES),
        args: [args],
      });
      // A child an earlier release ran (before an upgrade) returns no counts it did not keep then.
      return { ...emptyTargetResult(part.target), ...ended };
    } catch (err) {
      return this.failed(part, { node: '(target workflow)', message: (err as Error).message }, err);
    }
  }

  /** A target that failed before its nodes could say where: it fails at its first node, and a resume starts there. */
  private failed(part: TargetPart, error: { node: string; message: string }, err: unknown): LayerTargetResult {
    if (isCancellation(err)) throw err;
    const failedAt = { index: part.firstIndex, node: part.nodes[0]?.name ?? '', context: part.seed ?? {} };
    return { ...emptyTargetResult(part.target), status: 'failed', error, failedAt };
  }

  /** A target's input: its part of the layer, the run's settings, what is left of the run's token budget. */
  private inputOf(part: TargetPart): LayerTargetInput {
    const { runId, input } = this;
    const perRun = input.layer.context.maxTokensPerRun;
    return {
      runId,
      target: part.target,
      nodes: part.nodes,
      firstIndex: part.firstIndex,
      hostQueue: input.hostQueue,
      llm: input.llm,
      defaultModel: input.defaultModel,
      layerName: input.layer.name,
      salience: input.layer.salience,
      context: input.layer.context,
      ...(perRun !== undefined ? { runTokensLeft: perRun - this.promptTokens } : {}),
      now: this.now,
      paysSalience: part.paysSalience,
      ...(part.seed ? { seed: part.seed } : {}),
      ...(input.templates ? { templates: input.templates } : {}),
      // Cassette lines are claimed per layer run: a child reads its root, an activity is told.
      ...(this.asActivities ? { cassetteScope: workflowInfo().root?.workflowId ?? runId } : {}),
    };
  }
}

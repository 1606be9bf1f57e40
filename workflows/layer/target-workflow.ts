import { isCancellation, workflowInfo } from '@temporalio/workflow';
import { layerTargetInputOf } from '../../core/layer/layer-released';
import type { LayerTargetInput, LayerTargetResult } from '../../core/layer/layer-types';
import { layerActivities } from './activities';
import { TargetRun } from '../../core/layer/target/target-run';

/**
 * One target of a layer run: the nodes in order, passing store references between them. A
 * child workflow of its own, so each target has its own history and, after a crash, resumes
 * at the node it was in: fetches and model calls that completed are never run again. Each
 * model call reserves salience before and settles after it; a failed target gets part of its
 * spending back and records where `dex layer --resume` goes on from (docs/layers.md).
 */
export async function layerTargetWorkflow(started: LayerTargetInput): Promise<LayerTargetResult> {
  // An input an earlier release wrote reads with defaults for what it lacks (core/layer/layer-released.ts).
  const input = layerTargetInputOf(started);
  // Cassette lines are claimed per layer run: the root of this child workflow, unless the layer said.
  const cassetteScope = input.cassetteScope ?? workflowInfo().root?.workflowId ?? input.runId;
  return new TargetRun(input, layerActivities(input.hostQueue), cassetteScope).runAll(isCancellation);
}

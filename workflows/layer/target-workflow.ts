import { isCancellation } from '@temporalio/workflow';
import { innermostMessage } from '../../core/failure-message';
import type { LayerTargetInput, LayerTargetResult } from '../../core/layer-types';
import { layerActivities } from './activities';
import { TargetRun } from './target-run';

/**
 * One target of a layer run: the nodes in order, passing store references between them. A
 * child workflow of its own, so each target has its own history and, after a crash, resumes
 * at the node it was in: fetches and model calls that completed are never run again.
 * Salience is spent just before the first model call and partly refunded if the target fails.
 */
export async function layerTargetWorkflow(input: LayerTargetInput): Promise<LayerTargetResult> {
  const run = new TargetRun(input, layerActivities(input.hostQueue));
  let current = '';
  try {
    for (const node of input.nodes) {
      current = node.name;
      if (!(await run.runNode(node))) break;
    }
  } catch (err) {
    if (isCancellation(err)) throw err;
    run.result.status = 'failed';
    run.result.error = { node: current, message: innermostMessage(err) };
    await run.refundSalience();
  }
  return run.result;
}

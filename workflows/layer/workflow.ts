import { executeChild, isCancellation, setHandler, workflowInfo } from '@temporalio/workflow';
import { layerNodeKey, layerTargetWorkflowId } from '../../core/ids';
import { buildLayerRunRecord, emptyTargetResult, GLOBAL_TOPIC, splitNodes } from '../../core/layer-run';
import type { LayerInput, LayerNode, LayerRunRecord, LayerTargetResult, TargetContext } from '../../core/layer-types';
import { statusQuery } from '../run/definitions';
import { LayerProgress } from './progress';
import { layerActivities } from './activities';
import { layerTargetWorkflow } from './target-workflow';
import { RunControl } from '../run/run-control';
import { FAILURE, nonRetryable } from '../../core/failure-types';

export { layerTargetWorkflow };

/**
 * One layer run (docs/interfaces.md#plans-workflows-and-ids): each target in its own child workflow, one after another, a
 * target's failure recorded and the rest going on (fail-forward); then the global part, if
 * the layer has one, over what all targets made. The audit record is stored at the end.
 */
export async function layerWorkflow(input: LayerInput): Promise<LayerRunRecord> {
  const runId = workflowInfo().workflowId;
  const startedAt = new Date().toISOString();
  const now = Date.now();
  const acts = layerActivities(input.hostQueue);
  const control: RunControl = new RunControl(async () => progress.ledger.publish());
  const progress = new LayerProgress(control);
  setHandler(statusQuery, () => progress.status());
  progress.ledger.attach(() => progress.status(), input.layer.name);

  const { perTarget, global } = splitNodes(input.layer.nodes);
  progress.at('layer', 'targets');
  const targets = await acts.resolveLayerTargets({ targets: input.layer.targets, now }, `${input.layer.name} · targets`);
  progress.ledger.step(`${targets.length} targets: ${targets.join(', ') || '(none)'}`);

  const results: LayerTargetResult[] = [];
  for (const target of targets) {
    await control.unpaused();
    results.push(await runTarget(target, perTarget, true));
  }

  let globalResult: LayerTargetResult | undefined;
  if (global.length > 0) {
    await control.unpaused();
    const reduceNode = global[0].type === 'reduce' ? global[0].name : 'reduce';
    progress.at(GLOBAL_TOPIC, reduceNode);
    const seed: TargetContext = {
      insights: await acts.reduceLayerResults(
        { key: layerNodeKey(runId, GLOBAL_TOPIC, reduceNode), insightIds: results.flatMap((r) => r.insightIds) },
        `${GLOBAL_TOPIC} · ${reduceNode} · reduce`,
      ),
      targets: results.map((r) => ({ key: r.target, status: r.status })),
    };
    globalResult = await runTarget(GLOBAL_TOPIC, global[0].type === 'reduce' ? global.slice(1) : global, false, seed);
  }

  const record = buildLayerRunRecord({ id: runId, input, startedAt, endedAt: new Date().toISOString(), targets: results, global: globalResult });
  await acts.recordLayerRun(record, `${input.layer.name} · record run`);
  progress.finish(record);
  if (record.state === 'failed') {
    const failures = record.errors.map((e) => `${e.target} at ${e.node}: ${e.error}`).join('; ');
    throw nonRetryable(FAILURE.LayerFailed, `every target failed: ${failures}`, [record]);
  }
  return record;

  async function runTarget(target: string, nodes: LayerNode[], paysSalience: boolean, seed?: TargetContext): Promise<LayerTargetResult> {
    progress.at(target, 'running');
    let result: LayerTargetResult;
    try {
      result = await executeChild(layerTargetWorkflow, {
        workflowId: layerTargetWorkflowId(runId, target),
        staticSummary: `${target === GLOBAL_TOPIC ? 'the global part' : `target ${target}`} of layer ${input.layer.name}`,
        args: [
          {
            runId,
            target,
            nodes,
            hostQueue: input.hostQueue,
            llm: input.llm,
            defaultModel: input.defaultModel,
            layerName: input.layer.name,
            salience: input.layer.salience,
            now,
            paysSalience,
            ...(seed ? { seed } : {}),
          },
        ],
      });
    } catch (err) {
      if (isCancellation(err)) throw err;
      result = { ...emptyTargetResult(target), status: 'failed', error: { node: '(target workflow)', message: (err as Error).message } };
    }
    progress.targetDone(result);
    return result;
  }
}

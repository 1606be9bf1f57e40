import { setHandler, workflowInfo } from '@temporalio/workflow';
import { layerNodeKey } from '../../core/run/ids';
import { layerInputOf } from '../../core/layer/layer-released';
import { buildLayerRunRecord, GLOBAL_TOPIC, splitNodes } from '../../core/layer/layer-run';
import type { LayerInput, LayerNode, LayerRunRecord, LayerTargetResult } from '../../core/layer/layer-types';
import { statusQuery } from '../run/definitions';
import { LayerProgress } from './progress';
import { layerActivities, type LayerActivities } from './activities';
import { TargetChildren, type TargetPart } from './children';
import { layerTargetWorkflow } from './target-workflow';
import { inLanes } from '../run/lanes';
import { RunControl } from '../run/run-control';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import { plural } from '../../core/text/plural';

export { layerTargetWorkflow };

/**
 * One layer run (docs/interfaces.md#plans-workflows-and-ids): each target in its own child workflow, one after another
 * or `concurrency` at once (docs/layers.md#running-targets-at-once), a target's failure recorded and the rest going on (fail-forward); then the global part, if
 * the layer has one, over what all targets made. The audit record is stored at the end.
 * A resumed run (`dex layer --resume`, docs/layers.md#resuming-a-run) runs only the failed
 * targets of the run it resumes, each from the node it failed at, with the context it had there.
 */
export async function layerWorkflow(started: LayerInput): Promise<LayerRunRecord> {
  // An input an earlier release wrote reads with defaults for what it lacks (core/layer/layer-released.ts).
  const input = layerInputOf(started);
  const runId = workflowInfo().workflowId;
  const startedAt = new Date().toISOString();
  // A replay counts back from the recording's clock (docs/testing-your-flows.md); reading the input adds no command.
  const now = input.clock ?? Date.now();
  const acts = layerActivities(input.hostQueue);
  const control: RunControl = new RunControl(async () => progress.ledger.publish());
  const progress = new LayerProgress(control);
  setHandler(statusQuery, () => progress.status());
  progress.ledger.attach(() => progress.status(), input.layer.name);
  const children = new TargetChildren(runId, input, now, progress);

  const { perTarget, global } = splitNodes(input.layer.nodes);
  const parts = await targetParts(input, perTarget, acts, progress, now);
  progress.ledger.step(`${plural(parts.length, 'target')}: ${parts.map((p) => p.target).join(', ') || '(none)'}`);

  const results = await inLanes(parts, input.layer.concurrency ?? 1, async (part) => {
    await control.unpaused();
    return children.run(part);
  });

  let globalResult: LayerTargetResult | undefined;
  const globalPart = await globalPartOf(runId, input, global, results, acts, progress);
  if (globalPart) {
    await control.unpaused();
    globalResult = await children.run(globalPart);
  }

  const record = buildLayerRunRecord({ id: runId, input, startedAt, endedAt: new Date().toISOString(), targets: results, global: globalResult });
  await acts.recordLayerRun({ record, layer: input.layer }, `${input.layer.name} · record run`);
  progress.finish(record);
  if (record.state === 'failed') {
    const failures = record.errors.map((e) => `${e.target} at ${e.node}: ${e.error}`).join('; ');
    throw nonRetryable(FAILURE.LayerFailed, `every target failed: ${failures}`, [record]);
  }
  return record;
}

/** The targets to run, all from their first node; a resumed run's failed targets, each from the node it failed at. */
async function targetParts(input: LayerInput, perTarget: LayerNode[], acts: LayerActivities, progress: LayerProgress, now: number): Promise<TargetPart[]> {
  if (input.resume) {
    return input.resume.points
      .filter((p) => p.target !== GLOBAL_TOPIC)
      .map((p) => ({ target: p.target, nodes: perTarget.slice(p.index), firstIndex: p.index, paysSalience: true, seed: p.context }));
  }
  progress.at('layer', 'targets');
  const targets = await acts.resolveLayerTargets({ targets: input.layer.targets, now }, `${input.layer.name} · targets`);
  return targets.map((target) => ({ target, nodes: perTarget, firstIndex: 0, paysSalience: true }));
}

/**
 * The global part: the targets' insights reduced into its context (unparsed ones only when the
 * `reduce` node asks for them), then the nodes after the reduce on the `global` topic. A resumed
 * run runs it only if it failed in the run resumed, from its node, with its context.
 */
async function globalPartOf(
  runId: string,
  input: LayerInput,
  global: LayerNode[],
  results: LayerTargetResult[],
  acts: LayerActivities,
  progress: LayerProgress,
): Promise<TargetPart | undefined> {
  const reduce = global[0]?.type === 'reduce' ? global[0] : undefined;
  const nodes = reduce ? global.slice(1) : global;
  if (input.resume) {
    const point = input.resume.points.find((p) => p.target === GLOBAL_TOPIC);
    return point && { target: GLOBAL_TOPIC, nodes: nodes.slice(point.index), firstIndex: point.index, paysSalience: false, seed: point.context };
  }
  if (global.length === 0) return undefined;
  const reduceNode = reduce?.name ?? 'reduce';
  progress.at(GLOBAL_TOPIC, reduceNode);
  const reduced = await acts.reduceLayerResults(
    {
      key: layerNodeKey(runId, GLOBAL_TOPIC, reduceNode),
      insightIds: results.flatMap((r) => r.insightIds),
      includeUnparsed: reduce?.type === 'reduce' ? reduce.params.includeUnparsed : false,
    },
    `${GLOBAL_TOPIC} · ${reduceNode} · reduce`,
  );
  const seed = { insights: reduced, targets: results.map((r) => ({ key: r.target, status: r.status })) };
  return { target: GLOBAL_TOPIC, nodes, firstIndex: 0, paysSalience: false, seed };
}

import { setHandler, workflowInfo } from '@temporalio/workflow';
import { layerNodeKey } from '../../core/run/ids';
import { layerInputOf } from '../../core/layer/layer-released';
import { buildLayerRunRecord, GLOBAL_TOPIC, splitNodes } from '../../core/layer/layer-run';
import type { LayerInput, LayerNode, LayerRunRecord, LayerTargetResult } from '../../core/layer/layer-types';
import { statusQuery } from '../../core/run/definitions';
import { LayerProgress } from './progress';
import { layerActivities, type LayerActivities } from './activities';
import { TargetChildren, type TargetPart } from './children';
import { LayerChain } from './chain';
import { layerTargetWorkflow } from './target-workflow';
import { inLanes } from '../run/lanes';
import { inBatches } from '../../core/layer/target-batches';
import { RunControl } from '../run/run-control';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import { plural } from '../../core/text/plural';
import { recordForResult } from '../../core/layer/record-lists';

export { layerTargetWorkflow };

/**
 * One layer run (docs/interfaces.md#plans-workflows-and-ids): each target as one activity or a child workflow of its own
 * (docs/layers.md#where-a-target-runs), one after another
 * or `concurrency` at once (docs/layers.md#running-targets-at-once), a target's failure recorded and the rest going on (fail-forward); then the global part, if
 * the layer has one, over what all targets made. The audit record is stored at the end.
 * A resumed run (`dex layer --resume`, docs/layers.md#resuming-a-run) runs only the failed
 * targets of the run it resumes, each from the node it failed at, with the context it had there.
 */
export async function layerWorkflow(started: LayerInput): Promise<LayerRunRecord> {
  // An input an earlier release wrote reads with defaults for what it lacks (core/layer/layer-released.ts).
  const input = layerInputOf(started);
  const runId = workflowInfo().workflowId;
  // A continued run (docs/layers.md#continue-as-new) keeps its chain's start and clock; a replay
  // counts back from the recording's clock (docs/testing-your-flows.md); reading the input adds no command.
  const startedAt = input.carried?.startedAt ?? new Date().toISOString();
  const now = input.carried?.now ?? input.clock ?? Date.now();
  const acts = layerActivities(input.hostQueue);
  const chain = new LayerChain(input, acts);
  const control: RunControl = new RunControl(async () => progress.ledger.publish());
  const progress = new LayerProgress(control);
  if (input.carried) progress.carry(input.carried);
  setHandler(statusQuery, () => progress.status());
  progress.ledger.attach(() => progress.status(), input.layer.name);
  const children = new TargetChildren(runId, input, now, progress, acts);

  const { perTarget, global } = splitNodes(input.layer.nodes);
  const parts = await targetParts(input, perTarget, acts, progress, now, chain);
  if (!input.carried) progress.ledger.step(`${plural(parts.length, 'target')}: ${parts.map((p) => p.target).join(', ') || '(none)'}`);

  // A few targets to an activity, `concurrency` targets at once in all (docs/layers.md#where-a-target-runs).
  const size = children.batchSize;
  const finished = await inLanes(
    inBatches(parts, size),
    Math.max(1, Math.floor((input.layer.concurrency ?? 1) / size)),
    async (batch) => {
      await control.unpaused();
      const ended = await children.run(batch);
      for (const result of ended) chain.noteResult(result);
      return ended;
    },
    (running, started) => chain.full(running, started),
  );
  const results = finished.flat();
  // The history is full: the targets left go to the next run of the chain, which the rest of this function is for.
  if (results.length < parts.length) return chain.handOver(parts, results, { startedAt, now, promptTokens: children.promptTokens });

  let globalResult: LayerTargetResult | undefined;
  const globalPart = await globalPartOf(runId, input, global, results, acts, progress, chain.chunks);
  if (globalPart) {
    await control.unpaused();
    [globalResult] = await children.run([globalPart]);
  }

  const endedAt = new Date().toISOString();
  // The result carries the first entries of each list; the stored record keeps them all (the chain's activity cuts its own).
  const record = chain.chunks.length
    ? await acts.recordLayerChain({ id: runId, input, layer: input.layer, startedAt, endedAt, chunks: chain.chunks, targets: results, global: globalResult }, `${input.layer.name} · record run`)
    : await recordRun(acts, input, buildLayerRunRecord({ id: runId, input, startedAt, endedAt, targets: results, global: globalResult }));
  progress.finish(record);
  if (record.state === 'failed') {
    const failures = record.errors.map((e) => `${e.target} at ${e.node}: ${e.error}`).join('; ');
    throw nonRetryable(FAILURE.LayerFailed, `every target failed: ${failures}`, [record]);
  }
  return record;
}

/** Stores a run's whole record and returns it as the result carries it. */
async function recordRun(acts: LayerActivities, input: LayerInput, record: LayerRunRecord): Promise<LayerRunRecord> {
  await acts.recordLayerRun({ record, layer: input.layer }, `${input.layer.name} · record run`);
  return recordForResult(record);
}

/** The targets to run, all from their first node; a resumed run's failed targets, each from the node it failed at. */
async function targetParts(input: LayerInput, perTarget: LayerNode[], acts: LayerActivities, progress: LayerProgress, now: number, chain: LayerChain): Promise<TargetPart[]> {
  // A continued run starts where the run before it stopped (docs/layers.md#continue-as-new).
  if (input.resume) {
    return input.resume.points
      .filter((p) => p.target !== GLOBAL_TOPIC)
      .slice(chain.next)
      .map((p) => ({ target: p.target, nodes: perTarget.slice(p.index), firstIndex: p.index, paysSalience: true, seed: p.context }));
  }
  progress.at('layer', 'targets');
  const targets = input.carried ? await chain.targetsLeft() : await acts.resolveLayerTargets({ targets: input.layer.targets, now }, `${input.layer.name} · targets`);
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
  chunks: string[],
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
  const key = layerNodeKey(runId, GLOBAL_TOPIC, reduceNode);
  const includeUnparsed = reduce?.type === 'reduce' ? reduce.params.includeUnparsed : false;
  const summary = `${GLOBAL_TOPIC} · ${reduceNode} · reduce`;
  // A run that continued as new reduces its earlier runs' results from the store (docs/layers.md#continue-as-new).
  if (chunks.length) {
    const mine = results.map((r) => ({ target: r.target, status: r.status, insightIds: r.insightIds }));
    const seed = await acts.reduceLayerChain({ key, chunks, results: mine, includeUnparsed }, summary);
    return { target: GLOBAL_TOPIC, nodes, firstIndex: 0, paysSalience: false, seed };
  }
  const reduced = await acts.reduceLayerResults({ key, insightIds: results.flatMap((r) => r.insightIds), includeUnparsed }, summary);
  const seed = { insights: reduced, targets: results.map((r) => ({ key: r.target, status: r.status })) };
  return { target: GLOBAL_TOPIC, nodes, firstIndex: 0, paysSalience: false, seed };
}

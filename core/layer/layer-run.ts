/**
 * The shape of a layer run: which nodes run per target and which once for all, and the run's
 * status and audit record from its targets' results. Pure: the workflow sandbox imports it.
 */
import type { LayerInput, LayerNode, LayerRunRecord, LayerRunStatus, LayerTargetResult } from './layer-types';
import { addUsage, addUsd, tokensIn, ZERO_USAGE } from '../run/usage';

/** The key of the topic that `synthesize_to_global` and the nodes after `reduce` work on. */
export const GLOBAL_TOPIC = 'global';

/**
 * Splits the nodes at the first `reduce` or `synthesize_to_global`: the nodes before run for
 * each target, the rest once, on the global topic, over what all targets made.
 */
export function splitNodes(nodes: readonly LayerNode[]): { perTarget: LayerNode[]; global: LayerNode[] } {
  const at = nodes.findIndex((n) => n.type === 'reduce' || n.type === 'synthesize_to_global');
  return at === -1 ? { perTarget: [...nodes], global: [] } : { perTarget: nodes.slice(0, at), global: nodes.slice(at) };
}

/**
 * `failed` when targets failed and none succeeded, `partial` when some failed (or the global
 * part did), `dry` when none failed but no insight was made, else `success`.
 */
export function layerRunStatus(targets: readonly LayerTargetResult[], global?: LayerTargetResult): LayerRunStatus {
  const failed = targets.filter((t) => t.status === 'failed').length;
  const succeeded = targets.filter((t) => t.status === 'success').length;
  if (failed > 0 && succeeded === 0) return 'failed';
  if (failed > 0 || global?.status === 'failed') return 'partial';
  const insights = [...targets, ...(global ? [global] : [])].reduce((n, t) => n + t.insightIds.length, 0);
  return insights === 0 ? 'dry' : 'success';
}

/** The audit record of a run from its targets' (and its global part's) results. */
export function buildLayerRunRecord(args: {
  id: string;
  input: LayerInput;
  startedAt: string;
  endedAt: string;
  targets: LayerTargetResult[];
  global?: LayerTargetResult;
}): LayerRunRecord {
  const { targets, global, input } = args;
  const all = [...targets, ...(global ? [global] : [])];
  const tokens = all.reduce((sum, t) => addUsage(sum, t.tokens), ZERO_USAGE);
  const status = layerRunStatus(targets, global);
  const tokensRead = tokensIn(tokens);
  return {
    id: args.id,
    state: status === 'failed' ? 'failed' : 'completed',
    status,
    layerName: input.layer.name,
    layerHash: input.hash,
    startedAt: args.startedAt,
    endedAt: args.endedAt,
    targetsMatched: targets.length,
    targetsProcessed: targets.filter((t) => t.status !== 'skipped').length,
    targetsSkipped: targets.filter((t) => t.status === 'skipped').length,
    targetsFailed: targets.filter((t) => t.status === 'failed').length,
    insightsCreated: all.reduce((n, t) => n + t.insightIds.length, 0),
    model: all.find((t) => t.model)?.model ?? input.defaultModel,
    tokens,
    tokensIn: tokensRead,
    tokensOut: tokens.output,
    tokensTotal: tokensRead + tokens.output,
    costUsd: addUsd(...all.map((t) => t.costUsd)),
    messagesTrimmed: all.reduce((n, t) => n + t.messagesTrimmed, 0),
    insightsTrimmed: all.reduce((n, t) => n + t.insightsTrimmed, 0),
    contextTokens: all.reduce((n, t) => n + t.contextTokens, 0),
    promptTokens: all.reduce((n, t) => n + t.promptTokens, 0),
    skipped: targets.filter((t) => t.status === 'skipped').map((t) => ({ target: t.target, reason: t.reason ?? 'skipped' })),
    errors: all.filter((t) => t.error).map((t) => ({ target: t.target, node: t.error!.node, error: t.error!.message })),
    outputs: all.flatMap((t) => t.outputs.map((o) => ({ target: t.target, ...o }))),
    resumable: all.flatMap((t) => (t.status === 'failed' && t.failedAt ? [{ target: t.target, ...t.failedAt }] : [])),
    ...(input.resume ? { resumes: input.resume.runId } : {}),
    targets: all.map((t) => ({ target: t.target, status: t.status })),
  };
}

/** A target's result before any node ran. */
export function emptyTargetResult(target: string): LayerTargetResult {
  return {
    target,
    status: 'success',
    insightIds: [],
    tokens: ZERO_USAGE,
    costUsd: 0,
    modelCalls: 0,
    messages: 0,
    messagesTrimmed: 0,
    insightsTrimmed: 0,
    contextTokens: 0,
    promptTokens: 0,
    salienceSpent: 0,
    outputs: [],
  };
}

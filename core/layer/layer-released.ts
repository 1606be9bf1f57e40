/**
 * Layer inputs as released versions of dex wrote them. A run started by an earlier release
 * keeps the input it started with, in its history, for as long as it is open; today's workflow
 * code reads it through these defaults instead of assuming today's shape
 * (docs/production.md#upgrading-dex-with-runs-in-flight). Pure: bundled into workflow code.
 *
 * release 2026-11-22-0603 and before: no `layer.context` (no context budgets), no `maxContextTokens` on model
 * nodes, no `includeUnparsed`, no `firstIndex`, and salience as `{ cost, refund }`: a flat cost
 * per target attempt instead of `costPerToken`.
 */
import type { ContextRules, LayerInput, LayerNode, LayerTargetInput, SalienceRules } from './layer-types';

/** A prompt budget no prompt reaches: released runs had none, so nothing of theirs is trimmed. */
const NO_BUDGET = Number.MAX_SAFE_INTEGER;

/** The context rules of a run that predates them: no budgets, today's trim order. */
const NO_CONTEXT_RULES: ContextRules = { trim: ['messages', 'insights'] };

/** Salience as any release wrote it; `cost` is release 2026-11-22-0603's flat cost per target attempt. */
type ReleasedSalience = Partial<SalienceRules> & { cost?: number };

/**
 * Salience rules with today's fields; a released flat cost stays as `cost` (and `costPerToken`
 * 0), so the target charges it per attempt as that release did (core/layer/target/target-salience.ts).
 */
function salienceOf(raw: ReleasedSalience): SalienceRules {
  const refund = raw.refund ?? 0.5;
  if (raw.costPerToken === undefined && raw.cost !== undefined) return { costPerToken: 0, refund, cost: raw.cost };
  return { ...raw, costPerToken: raw.costPerToken ?? 0, refund };
}

function nodeOf(node: LayerNode): LayerNode {
  switch (node.type) {
    case 'llm_call':
    case 'synthesize_to_global':
      return { ...node, params: { ...node.params, maxContextTokens: node.params.maxContextTokens ?? NO_BUDGET } } as LayerNode;
    case 'fetch_insights':
    case 'reduce':
      return { ...node, params: { ...node.params, includeUnparsed: node.params.includeUnparsed ?? false } } as LayerNode;
    default:
      return node;
  }
}

/** A `layerWorkflow` input of any release, in today's shape. */
export function layerInputOf(input: LayerInput): LayerInput {
  const layer = input.layer;
  return {
    ...input,
    layer: {
      ...layer,
      salience: salienceOf(layer.salience),
      context: layer.context ?? NO_CONTEXT_RULES,
      nodes: layer.nodes.map(nodeOf),
    },
  };
}

/** A `layerTargetWorkflow` input of any release, in today's shape. */
export function layerTargetInputOf(input: LayerTargetInput): LayerTargetInput {
  return {
    ...input,
    nodes: input.nodes.map(nodeOf),
    salience: salienceOf(input.salience),
    context: input.context ?? NO_CONTEXT_RULES,
    firstIndex: input.firstIndex ?? 0,
  };
}

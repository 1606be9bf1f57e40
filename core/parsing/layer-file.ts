/**
 * Layer files (`*.layer.yaml`): parsed, validated against `schemas/layer.schema.json`, and
 * checked for what a schema cannot say (unique node names, a model answer before the nodes
 * that use one). Every error names the node it is about. Pure: reading files is the caller's.
 */
import Ajv, { type ErrorObject } from 'ajv';
import schema from '../../schemas/layer.schema.json';
import { InvalidInput } from '../run/invalid-input';
import type { ContextRules, LayerNode, LayerSpec, LayerTargets, LlmCallParams, ParseMode, TrimKind } from '../layer/layer-types';
import { parseYamlInput, pointerPath, type YamlInput } from './yaml-input';

/**
 * Resolves a path a node names (relative to the layer file); throws InvalidInput saying what is
 * wrong with it (a missing template), to which parseLayerFile adds the file, the place and the node.
 */
type PathResolver = (path: string, kind: 'template' | 'file') => string;

/** Resolves the path in a node's param `param`. */
type ParamResolver = (param: string, kind: 'template' | 'file') => string;

type RawNode = { name: string; type: LayerNode['type']; params?: Record<string, unknown> };
type RawLayer = {
  name: string;
  model?: string;
  targets: string[] | { keys: string[] } | { select: { lookback_hours?: number; min_messages?: number; limit?: number } };
  salience?: { cost_per_token?: number; refund?: number };
  context?: { max_tokens_per_topic?: number; max_tokens_per_run?: number; trim?: TrimKind[] };
  concurrency?: number;
  target_workflows?: boolean;
  nodes: RawNode[];
};

/** What a prompt may have when its node sets no `max_context_tokens`: under a Claude model's 200k context, with room for the answer and the estimate's error. */
const DEFAULT_MAX_CONTEXT_TOKENS = 150_000;
/** @see SalienceRules */
const DEFAULT_COST_PER_TOKEN = 0.001;

// The schema's defaults document the params; checkedNode applies them.
const validate = new Ajv({ allErrors: true }).compile<RawLayer>(schema);

/** Node types that need a model answer from an earlier node. */
const NEEDS_REPLY = new Set<LayerNode['type']>(['store_insight', 'output', 'update_self_concept']);
/** Node types that give one. */
const GIVES_REPLY = new Set<LayerNode['type']>(['llm_call', 'synthesize_to_global']);

/**
 * Parses and checks a layer file's `text`; throws InvalidInput in one line: `source`, the line and
 * column when known, the node at fault when there is one, and the problem.
 */
export function parseLayerFile(text: string, source: string, resolvePath: PathResolver): LayerSpec {
  const yaml = parseYamlInput(text, source);
  const raw = yaml.value;
  refuseFlatCost(yaml);
  if (!validate(raw)) throw schemaError(yaml, raw, validate.errors ?? []);
  if ((raw.concurrency ?? 1) > 1 && raw.context?.max_tokens_per_run !== undefined) {
    throw new InvalidInput(`${yaml.placeOf(['concurrency'])}: concurrency ${raw.concurrency} cannot be combined with context.max_tokens_per_run, which counts the run's targets one after another; see docs/layers.md#running-targets-at-once`);
  }
  const names = new Set<string>();
  let hasReply = false;
  raw.nodes.forEach((node, i) => {
    if (names.has(node.name)) throw new InvalidInput(`${yaml.placeOf(['nodes', i, 'name'])}: node "${node.name}": the name is used twice`);
    names.add(node.name);
    if (NEEDS_REPLY.has(node.type) && !hasReply) {
      throw new InvalidInput(`${yaml.placeOf(['nodes', i])}: node "${node.name}" (${node.type}) needs an llm_call or synthesize_to_global before it`);
    }
    if (GIVES_REPLY.has(node.type)) hasReply = true;
  });
  const paramResolver = (node: RawNode, i: number): ParamResolver => (param, kind) => {
    try {
      return resolvePath(node.params?.[param] as string, kind);
    } catch (err) {
      if (!(err instanceof InvalidInput)) throw err;
      throw new InvalidInput(`${yaml.placeOf(['nodes', i, 'params', param])}: node "${node.name}": ${err.message}`);
    }
  };
  return {
    name: raw.name,
    ...(raw.model ? { model: raw.model } : {}),
    targets: targetsOf(raw.targets),
    salience: { costPerToken: raw.salience?.cost_per_token ?? DEFAULT_COST_PER_TOKEN, refund: raw.salience?.refund ?? 0.5 },
    context: contextOf(raw.context),
    ...((raw.concurrency ?? 1) > 1 ? { concurrency: raw.concurrency } : {}),
    ...(raw.target_workflows ? { targetWorkflows: true } : {}),
    nodes: raw.nodes.map((node, i) => checkedNode(node, paramResolver(node, i))),
  };
}

/**
 * `salience.cost` (a flat cost per attempt) gave way to `cost_per_token`: refused by name, so an
 * old layer file says what to change instead of running on a different price.
 */
function refuseFlatCost(yaml: YamlInput): void {
  const salience = (yaml.value as { salience?: unknown } | null)?.salience;
  if (typeof salience === 'object' && salience !== null && 'cost' in salience) {
    throw new InvalidInput(
      `${yaml.placeOf(['salience', 'cost'])}: salience.cost is no longer read: a model call now spends its prompt's input tokens × salience.cost_per_token (default ${DEFAULT_COST_PER_TOKEN}); see docs/layers.md#salience`,
    );
  }
}

function contextOf(raw: RawLayer['context']): ContextRules {
  return {
    ...(raw?.max_tokens_per_topic ? { maxTokensPerTopic: raw.max_tokens_per_topic } : {}),
    ...(raw?.max_tokens_per_run ? { maxTokensPerRun: raw.max_tokens_per_run } : {}),
    trim: raw?.trim ?? ['messages', 'insights'],
  };
}

function targetsOf(raw: RawLayer['targets']): LayerTargets {
  if (Array.isArray(raw)) return { keys: raw };
  if ('keys' in raw) return { keys: raw.keys };
  const s = raw.select;
  return { select: { lookbackHours: s.lookback_hours ?? 24, minMessages: s.min_messages ?? 1, ...(s.limit ? { limit: s.limit } : {}) } };
}

function checkedNode(node: RawNode, resolveParam: ParamResolver): LayerNode {
  const p = (node.params ?? {}) as Record<string, never>;
  const { name } = node;
  const llm = (): LlmCallParams => ({
    promptTemplate: resolveParam('prompt_template', 'template'),
    ...(p.model ? { model: p.model as string } : {}),
    maxTokens: p.max_tokens ?? 500,
    maxContextTokens: p.max_context_tokens ?? DEFAULT_MAX_CONTEXT_TOKENS,
  });
  switch (node.type) {
    case 'fetch_messages':
      return {
        name,
        type: node.type,
        params: {
          lookbackHours: p.lookback_hours ?? 24,
          limitPerChannel: p.limit_per_channel ?? 50,
          ...(p.max_context_tokens ? { maxContextTokens: p.max_context_tokens as number } : {}),
        },
      };
    case 'fetch_insights':
      return {
        name,
        type: node.type,
        params: { retrievalProfile: p.retrieval_profile ?? 'balanced', maxPerTopic: p.max_per_topic ?? 5, includeUnparsed: p.include_unparsed ?? false },
      };
    case 'llm_call':
      return { name, type: node.type, params: llm() };
    case 'store_insight':
      return { name, type: node.type, params: { category: p.category, parse: (p.parse as ParseMode | undefined) ?? 'repair' } };
    case 'reduce':
      return { name, type: node.type, params: { includeUnparsed: p.include_unparsed ?? false } };
    case 'output':
      return { name, type: node.type, params: p.path ? { path: resolveParam('path', 'file') } : {} };
    case 'synthesize_to_global':
      return { name, type: node.type, params: { ...llm(), category: p.category ?? 'synthesis', parse: (p.parse as ParseMode | undefined) ?? 'repair' } };
    case 'update_self_concept':
      return { name, type: node.type, params: { documentPath: resolveParam('document_path', 'file') } };
  }
}

/** The most telling schema error, as a message that names its place and the node it is in. */
function schemaError(yaml: YamlInput, raw: unknown, errors: ErrorObject[]): InvalidInput {
  // `if` and `oneOf` only say that a branch failed; the branch's own error says what is wrong.
  const telling = errors.filter((e) => e.keyword !== 'if' && e.keyword !== 'oneOf');
  const byType = telling.find((e) => /^\/nodes\/\d+\/type$/.test(e.instancePath)) ?? telling.find((e) => e.instancePath.startsWith('/nodes/'));
  const error = byType ?? telling[0] ?? errors[0];
  const index = /^\/nodes\/(\d+)/.exec(error.instancePath)?.[1];
  const nodes = (raw as { nodes?: unknown[] } | null)?.nodes;
  const node = index !== undefined ? (nodes?.[Number(index)] as { name?: unknown; type?: unknown } | undefined) : undefined;
  const name = typeof node?.name === 'string' ? node.name : index !== undefined ? `#${Number(index) + 1}` : undefined;
  const what = describe(error, node?.type, index !== undefined);
  const place = yaml.placeOf(pointerPath(error.instancePath), (error.params as { additionalProperty?: string }).additionalProperty);
  return new InvalidInput(name ? `${place}: node "${name}": ${what}` : `${place}: ${what}`);
}

function describe(error: ErrorObject, nodeType: unknown, inNode: boolean): string {
  const params = error.params as Record<string, unknown>;
  const field = error.instancePath.replace(/^\/nodes\/\d+\/?/, '').replace(/^\//, '').replace(/\//g, '.');
  if (!inNode && error.keyword === 'required') return `missing required key "${String(params.missingProperty)}"${field ? ` in ${field}` : ''}`;
  if (error.keyword === 'enum' && field === 'type') {
    return `unknown node type "${String(nodeType)}"; known types: ${(params.allowedValues as string[]).join(', ')}`;
  }
  if (error.keyword === 'required') {
    const missing = String(params.missingProperty);
    return missing === 'params' ? `${String(nodeType)} needs params` : `missing required param ${missing}${field && field !== 'params' ? ` in ${field}` : ''}`;
  }
  if (error.keyword === 'additionalProperties') return `unknown key "${String(params.additionalProperty)}"${field ? ` in ${field}` : ''}`;
  return `${field || error.instancePath.slice(1).replace(/\//g, '.') || 'the layer'} ${error.message ?? 'is invalid'}`;
}

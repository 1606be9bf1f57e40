/**
 * Layer files (`*.layer.yaml`): parsed, validated against `schemas/layer.schema.json`, and
 * checked for what a schema cannot say (unique node names, a model answer before the nodes
 * that use one). Every error names the node it is about. Pure: reading files is the caller's.
 */
import Ajv, { type ErrorObject } from 'ajv';
import { parse as parseYaml } from 'yaml';
import schema from '../schemas/layer.schema.json';
import { InvalidInput } from './invalid-input';
import type { LayerNode, LayerSpec, LayerTargets, LlmCallParams, ParseMode } from './layer-types';

/** Resolves a path a node names (relative to the layer file); throws InvalidInput when a template is missing. */
export type PathResolver = (path: string, kind: 'template' | 'file', node: string) => string;

type RawNode = { name: string; type: LayerNode['type']; params?: Record<string, unknown> };
type RawLayer = {
  name: string;
  model?: string;
  targets: string[] | { keys: string[] } | { select: { lookback_hours?: number; min_messages?: number; limit?: number } };
  salience?: { cost?: number; refund?: number };
  nodes: RawNode[];
};

// The schema's defaults document the params; checkedNode applies them.
const validate = new Ajv({ allErrors: true }).compile<RawLayer>(schema);

/** Node types that need a model answer from an earlier node. */
const NEEDS_REPLY = new Set<LayerNode['type']>(['store_insight', 'output', 'update_self_concept']);
/** Node types that give one. */
const GIVES_REPLY = new Set<LayerNode['type']>(['llm_call', 'synthesize_to_global']);

/** Parses and checks a layer file's `text`; throws InvalidInput naming `source` and the node at fault, when one is. */
export function parseLayerFile(text: string, source: string, resolvePath: PathResolver): LayerSpec {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new InvalidInput(`${source}: not valid YAML: ${(err as Error).message}`);
  }
  if (!validate(raw)) throw schemaError(source, raw, validate.errors ?? []);
  const names = new Set<string>();
  let hasReply = false;
  for (const node of raw.nodes) {
    if (names.has(node.name)) throw new InvalidInput(`${source}: node "${node.name}": the name is used twice`);
    names.add(node.name);
    if (NEEDS_REPLY.has(node.type) && !hasReply) {
      throw new InvalidInput(`${source}: node "${node.name}" (${node.type}) needs an llm_call or synthesize_to_global before it`);
    }
    if (GIVES_REPLY.has(node.type)) hasReply = true;
  }
  return {
    name: raw.name,
    ...(raw.model ? { model: raw.model } : {}),
    targets: targetsOf(raw.targets),
    salience: { cost: raw.salience?.cost ?? 1, refund: raw.salience?.refund ?? 0.5 },
    nodes: raw.nodes.map((node) => checkedNode(node, resolvePath)),
  };
}

function targetsOf(raw: RawLayer['targets']): LayerTargets {
  if (Array.isArray(raw)) return { keys: raw };
  if ('keys' in raw) return { keys: raw.keys };
  const s = raw.select;
  return { select: { lookbackHours: s.lookback_hours ?? 24, minMessages: s.min_messages ?? 1, ...(s.limit ? { limit: s.limit } : {}) } };
}

function checkedNode(node: RawNode, resolvePath: PathResolver): LayerNode {
  const p = (node.params ?? {}) as Record<string, never>;
  const { name } = node;
  const llm = (): LlmCallParams => ({
    promptTemplate: resolvePath(p.prompt_template, 'template', name),
    ...(p.model ? { model: p.model as string } : {}),
    maxTokens: p.max_tokens ?? 500,
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
      return { name, type: node.type, params: { retrievalProfile: p.retrieval_profile ?? 'balanced', maxPerTopic: p.max_per_topic ?? 5 } };
    case 'llm_call':
      return { name, type: node.type, params: llm() };
    case 'store_insight':
      return { name, type: node.type, params: { category: p.category, parse: (p.parse as ParseMode | undefined) ?? 'repair' } };
    case 'reduce':
      return { name, type: node.type, params: {} };
    case 'output':
      return { name, type: node.type, params: p.path ? { path: resolvePath(p.path, 'file', name) } : {} };
    case 'synthesize_to_global':
      return { name, type: node.type, params: { ...llm(), category: p.category ?? 'synthesis', parse: (p.parse as ParseMode | undefined) ?? 'repair' } };
    case 'update_self_concept':
      return { name, type: node.type, params: { documentPath: resolvePath(p.document_path, 'file', name) } };
  }
}

/** The most telling schema error, as a message that names the node it is in. */
function schemaError(source: string, raw: unknown, errors: ErrorObject[]): InvalidInput {
  // `if` and `oneOf` only say that a branch failed; the branch's own error says what is wrong.
  const telling = errors.filter((e) => e.keyword !== 'if' && e.keyword !== 'oneOf');
  const byType = telling.find((e) => /^\/nodes\/\d+\/type$/.test(e.instancePath)) ?? telling.find((e) => e.instancePath.startsWith('/nodes/'));
  const error = byType ?? telling[0] ?? errors[0];
  const index = /^\/nodes\/(\d+)/.exec(error.instancePath)?.[1];
  const nodes = (raw as { nodes?: unknown[] }).nodes;
  const node = index !== undefined ? (nodes?.[Number(index)] as { name?: unknown; type?: unknown } | undefined) : undefined;
  const name = typeof node?.name === 'string' ? node.name : index !== undefined ? `#${Number(index) + 1}` : undefined;
  const what = describe(error, node?.type, index !== undefined);
  return new InvalidInput(name ? `${source}: node "${name}": ${what}` : `${source}: ${what}`);
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
  return `${field || error.instancePath || 'value'} ${error.message ?? 'is invalid'}`;
}

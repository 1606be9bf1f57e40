import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseLayerFile } from '../../core/parsing/layer-file';
import type { LayerInput, LayerSpec } from '../../core/layer/layer-types';
import { templateRefs } from './layer-templates';
import type { LlmSpec } from '../../core/run/run-types';
import { DEFAULT_MODEL } from '../../core/run/pricing';
import { InvalidInput } from '../../core/run/invalid-input';
import { checkPriced, parseLlmSpec } from './llm-spec';
import type { Settings } from '../settings';

/**
 * Reads and checks a layer file and turns it into the `layerWorkflow` input; throws
 * InvalidInput naming the node at fault before anything starts. Paths in the file are relative
 * to it; prompt templates must exist.
 */
export function buildLayerInput(file: string, opts: { llm?: string }, settings: Settings, env: NodeJS.ProcessEnv = process.env): LayerInput {
  const path = resolve(file);
  if (!existsSync(path) || !statSync(path).isFile()) throw new InvalidInput(`layer file not found: ${path}`);
  const text = readFileSync(path, 'utf8');
  const templates = new Map<string, string>();
  const layer = parseLayerFile(text, path, (relative, kind) => {
    const absolute = resolve(dirname(path), relative);
    if (kind === 'template') {
      if (!existsSync(absolute) || !statSync(absolute).isFile()) throw new InvalidInput(`prompt template not found: ${absolute}`);
      templates.set(absolute, readFileSync(absolute, 'utf8'));
    }
    return absolute;
  });
  const { llm, defaultModel } = layerModels(layer, opts.llm, path, env);
  const hash = createHash('sha256').update(text);
  for (const template of templates.values()) hash.update('\0').update(template);
  return { layer, hash: hash.digest('hex'), hostQueue: settings.hostQueue, llm, defaultModel, templates: templateRefs(templates) };
}

/**
 * Where a layer's answers come from (`--llm`) and the model of its nodes that name none (the
 * `--llm anthropic:MODEL`, else the layer's, else dex's default); every model must be priced.
 */
export function layerModels(layer: LayerSpec, llmOption: string | undefined, where: string, env: NodeJS.ProcessEnv): { llm: LlmSpec; defaultModel: string } {
  const llm = parseLlmSpec(llmOption, env);
  const defaultModel = (llm.kind === 'anthropic' ? llm.model : undefined) ?? layer.model ?? DEFAULT_MODEL;
  checkPriced(defaultModel, `${where}: the layer's model`);
  for (const node of layer.nodes) {
    if ('model' in node.params && node.params.model) checkPriced(node.params.model, `${where}: node "${node.name}"`);
  }
  return { llm, defaultModel };
}

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { layerTemplateArtifactId } from '../../core/run/ids';
import { InvalidInput } from '../../core/run/invalid-input';
import type { TemplateRefs } from '../../core/layer/layer-types';
import type { DexStore } from '../../store/dex-store';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The refs of templates read as `texts` (path → text). */
export function templateRefs(texts: Map<string, string>): TemplateRefs {
  return Object.fromEntries([...texts].map(([path, text]) => [path, sha256(text)]));
}

/**
 * Puts each template the run will render into the store before it starts, keyed by its text's
 * sha256 (a text stored once serves every run that uses it), so a worker on any host of a shared
 * store renders exactly what the run was started with (docs/layers.md#running-targets-at-once).
 * A template changed since the input was read is InvalidInput: the run would not be the one checked.
 */
export async function storeLayerTemplates(store: DexStore, refs: TemplateRefs): Promise<void> {
  for (const [path, sha] of Object.entries(refs)) {
    const text = readFileSync(path, 'utf8');
    if (sha256(text) !== sha) throw new InvalidInput(`prompt template ${path} changed while dex read the layer: start it again`);
    await store.putArtifact(layerTemplateArtifactId(sha), 'layer-template', text);
  }
}

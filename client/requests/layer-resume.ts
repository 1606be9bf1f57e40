import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { InvalidInput } from '../../core/run/invalid-input';
import { GLOBAL_TOPIC, splitNodes } from '../../core/layer/layer-run';
import type { LayerInput, LayerNode, LayerRunRecord, LayerSpec, ResumePoint } from '../../core/layer/layer-types';
import type { DexStore } from '../../store/dex-store';
import { layerModels } from './layer-request';
import { templateRefs } from './layer-templates';
import type { Settings } from '../settings';

/** A resume to start, or why there is nothing to resume (not an error: every target is done). */
type LayerResume = { input: LayerInput } | { nothing: string };

/** Why `dex layer --resume RUN` cannot start: the store at `location` has no record of RUN. */
export function notRecorded(runId: string, location: string): InvalidInput {
  return new InvalidInput(`no layer run "${runId}" is recorded on this host (${location}); a layer run is recorded when it ends`);
}

/**
 * The input of `dex layer --resume RUN` (docs/layers.md#resuming-a-run): the layer RUN ran (as
 * `store` recorded it) and its failed targets, each with the node it goes on from and the
 * context it had there. The templates of the nodes that will run again must exist now; they are
 * read again and named by their text's sha256 (the command stores them), so a fixed template
 * takes effect. Throws InvalidInput (exit 2) for a run the store has no record of, or cannot resume.
 */
export async function buildLayerResumeInput(store: DexStore, runId: string, opts: { llm?: string }, settings: Settings, env: NodeJS.ProcessEnv = process.env): Promise<LayerResume> {
  const found = await readRun(store, runId);
  if (!found) throw notRecorded(runId, store.location);
  const { record, spec, resumedBy } = found;
  const points = record.resumable ?? [];
  if (points.length === 0 && record.errors.length === 0) return { nothing: `${runId}: nothing to resume: no target failed (it ended ${record.status})` };
  if (points.length === 0 || !spec) throw new InvalidInput(`${runId} was recorded before dex could resume runs: run its layer file again`);
  if (resumedBy.length > 0) throw new InvalidInput(`${runId} was resumed already by ${resumedBy.join(', ')}: resume that run instead`);
  const templates = templatesToRerun(runId, spec, points);
  const { llm, defaultModel } = layerModels(spec, opts.llm, runId, env);
  // Which layer ran: the one resumed, with the templates as they are now.
  const hash = createHash('sha256').update(record.layerHash);
  for (const text of templates.values()) hash.update('\0').update(text);
  return { input: { layer: spec, hash: hash.digest('hex'), hostQueue: settings.hostQueue, llm, defaultModel, resume: { runId, points }, templates: templateRefs(templates) } };
}

async function readRun({ layers }: DexStore, runId: string): Promise<{ record: LayerRunRecord; spec?: LayerSpec; resumedBy: string[] } | undefined> {
  const record = await layers.getLayerRun(runId);
  return record && { record, spec: await layers.getLayerRunSpec(runId), resumedBy: await layers.layerRunsResuming(runId) };
}

/** The texts of the templates the resumed nodes will render, by path; InvalidInput naming the node whose template is missing. */
function templatesToRerun(runId: string, spec: LayerSpec, points: ResumePoint[]): Map<string, string> {
  const { perTarget, global } = splitNodes(spec.nodes);
  const globalNodes = global[0]?.type === 'reduce' ? global.slice(1) : global;
  const nodes = new Map<string, LayerNode>();
  for (const p of points) for (const n of (p.target === GLOBAL_TOPIC ? globalNodes : perTarget).slice(p.index)) nodes.set(n.name, n);
  const texts = new Map<string, string>();
  for (const node of nodes.values()) {
    if (node.type !== 'llm_call' && node.type !== 'synthesize_to_global') continue;
    const path = node.params.promptTemplate;
    if (!existsSync(path) || !statSync(path).isFile()) throw new InvalidInput(`${runId}: node "${node.name}": prompt template not found: ${path}`);
    texts.set(path, readFileSync(path, 'utf8'));
  }
  return texts;
}

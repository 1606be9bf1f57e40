import type { LayerRunRecord } from '../../core/layer/layer-types';
import { formatUsd, tokensDetail } from '../../core/text/spending';
import { plural } from '../../core/text/plural';

/** A layer run's audit record as lines of text (for `dex layer` and `dex status`). */
export function renderLayerRun(r: LayerRunRecord): string[] {
  const lines = [
    `layer ${r.layerName} (${r.layerHash.slice(0, 12)}): ${r.status}${r.resumes ? ` · resumes ${r.resumes}` : ''}`,
    `${r.startedAt} → ${r.endedAt}`,
    `targets: ${r.targetsMatched} matched, ${r.targetsProcessed} processed, ${r.targetsSkipped} skipped, ${r.targetsFailed} failed · insights created: ${r.insightsCreated}`,
    // Records made before they kept the whole usage have only the sums.
    `model ${r.model} · tokens: ${r.tokens ? tokensDetail(r.tokens) : `${r.tokensIn} in / ${r.tokensOut} out`} · ${formatUsd(r.costUsd)}`,
  ];
  // Records made before prompt budgets have no promptTokens.
  if (r.promptTokens) lines.push(`prompts: ~${r.promptTokens} tokens (estimated) · ${plural(r.messagesTrimmed, 'message')} and ${plural(r.insightsTrimmed ?? 0, 'insight')} trimmed to fit`);
  else if (r.messagesTrimmed > 0) lines.push(`context: ${plural(r.messagesTrimmed, 'oldest message')} trimmed to fit, ~${r.contextTokens} tokens of messages sent`);
  for (const s of r.skipped) lines.push(`skipped ${s.target}: ${s.reason}`);
  lines.push(...more(r, 'skipped', 'skipped targets'));
  for (const e of r.errors) lines.push(`error ${e.target} at ${e.node}: ${e.error}`);
  lines.push(...more(r, 'errors', 'errors'));
  if (r.resumable?.length) lines.push(`resume with: dex layer --resume ${r.id} (${r.resumable.map((p) => `${p.target} from ${p.node}`).join(', ')}${r.cut?.resumable ? `, and ${r.cut.resumable - r.resumable.length} more` : ''})`);
  for (const o of r.outputs) lines.push(`--- ${o.target} ${o.node}\n${o.text}`);
  lines.push(...more(r, 'outputs', 'outputs'));
  return lines;
}

/** The line that says a list of the result was cut (core/layer/record-lists.ts), and where the rest is. */
function more(r: LayerRunRecord, list: 'skipped' | 'errors' | 'outputs', what: string): string[] {
  const all = r.cut?.[list];
  return all ? [`… and ${all - r[list].length} more ${what} (${all} in all, in the store's layer_runs record ${r.id})`] : [];
}

import type { LayerRunRecord } from '../core/layer-types';
import type { SheetResult } from '../core/sheet-types';
import type { RoadmapResult, TaskResult } from '../core/types';
import { describeRoadmap } from './commands/run';
import type { RunEnd } from './follow-run';
import { renderLayerRun } from './render-layer-run';
import { renderSheetResult } from './render-sheet';

/** How `dex status` shows a finished run of each workflow type. */
const RENDERERS: Record<string, (end: RunEnd<never>) => string[]> = {
  roadmapWorkflow: (end) => describeRoadmap(end.result as RoadmapResult | undefined),
  taskWorkflow: (end) => {
    const r = end.result as TaskResult | undefined;
    if (!r) return [];
    return [
      ...(r.commit ? [`commit: ${r.commit} on ${r.branch}`] : []),
      `tokens: ${r.tokens.input} in / ${r.tokens.output} out · $${r.costUsd.toFixed(4)} · ${r.turns} turns`,
    ];
  },
  sheetWorkflow: (end) => (end.result ? renderSheetResult(end.result as SheetResult) : []),
  layerWorkflow: (end) => (end.result ? renderLayerRun(end.result as LayerRunRecord) : []),
};

/** A finished run as text: its state and error, then what its workflow type reports. */
export function renderRunEnd(workflowType: string, id: string, end: RunEnd<unknown>): string {
  const head = `${id}: ${end.state}${end.error ? ` — ${end.error}` : ''}`;
  const body = RENDERERS[workflowType]?.(end as RunEnd<never>) ?? [];
  return [head, ...body].join('\n');
}

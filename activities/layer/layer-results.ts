/** What a layer run leaves: its insights in the store, its outputs in files (or printed), its run record. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { EMPTY_ANSWER, isEmptyAnswer, parseInsight, unparsedInsight } from '../../core/layer/insight-parse';
import type { LayerRunRecord, LayerSpec } from '../../core/layer/layer-types';
import { renderPrompt } from '../../core/layer/prompt-template';
import type { StoreLayerInsightInput, StoreLayerInsightResult, WriteLayerTextInput } from '../../core/layer/target/target-steps';
import type { ActivityDeps } from '../deps';
import { replyText } from '../model/prompt-call';

/** How much of a printed output goes into the run record. */
const OUTPUT_CHARS = 4_000;

/** Builds the result activities of a layer run over the host's dependencies. */
export const createLayerResultActivities = (deps: ActivityDeps) => {
  const { layers } = deps.store;
  return {
    /**
     * Stores the insight in a model reply under `id` (once). An empty answer stores nothing,
     * whatever the mode (`empty`: no repair either). `strict`: an answer without the insight
     * JSON stores nothing and says so; `graceful`: its text is kept, flagged unparsed.
     */
    async storeLayerInsight(input: StoreLayerInsightInput): Promise<StoreLayerInsightResult> {
      const text = await replyText(deps.store, input.reply.transcriptId, input.reply.seq);
      if (isEmptyAnswer(text)) return { stored: false, reason: EMPTY_ANSWER, empty: true };
      const parsed = parseInsight(text);
      if (!parsed && input.parse === 'strict') {
        return { stored: false, reason: `the model's answer is not insight JSON with a "content" field: ${JSON.stringify(text.slice(0, 120))}` };
      }
      const insight = parsed ?? unparsedInsight(text);
      const { strengthAdjustment, ...numbers } = insight;
      await layers.putInsight({
        id: input.id,
        topic: input.topic,
        category: input.category,
        ...numbers,
        // A topic that pays no salience (the global one) still gets a unit of strength to rank by.
        strength: (input.salienceSpent > 0 ? input.salienceSpent : 1) * strengthAdjustment,
        layerRunId: input.layerRunId,
        salienceSpent: input.salienceSpent,
        unparsed: !parsed,
      });
      return { stored: true, insightId: input.id, unparsed: !parsed };
    },

    /**
     * Writes a model reply to a file (`{{topic}}` in the path is replaced); without a path,
     * returns its text to print. An empty answer writes nothing (`empty`): the node fails
     * rather than blank a document.
     */
    async writeLayerText(input: WriteLayerTextInput): Promise<{ path?: string; text?: string; empty?: true }> {
      const text = await replyText(deps.store, input.reply.transcriptId, input.reply.seq);
      if (isEmptyAnswer(text)) return { empty: true };
      if (!input.path) return { text: text.slice(0, OUTPUT_CHARS) };
      const path = renderPrompt(input.path, { topic: input.topic.replace(/[^A-Za-z0-9._-]+/g, '-') });
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text.endsWith('\n') ? text : `${text}\n`);
      return { path };
    },

    /** Stores a layer run's audit record and the layer it ran, for `dex layer --resume` (once per run). */
    async recordLayerRun(input: { record: LayerRunRecord; layer: LayerSpec }): Promise<void> {
      await layers.putLayerRun(input.record, input.layer);
    },
  };
};

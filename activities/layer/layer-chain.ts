/**
 * The activities of a layer run that continues as new (docs/layers.md#continue-as-new): each run
 * of the chain stores its targets' results in the store and hands on only their artifact ids; the
 * last run reduces and records the whole chain from them, so no history holds every result.
 */
import { buildLayerRunRecord } from '../../core/layer/layer-run';
import type { ContextRef, LayerInput, LayerRunRecord, LayerSpec, LayerTargetResult, TargetContext } from '../../core/layer/layer-types';
import type { ActivityDeps } from '../deps';
import { chainArtifacts } from '../run/chain-artifacts';
import { recordForResult } from '../../core/layer/record-lists';

/** The artifact kinds of a chain: its targets, and one run's target results. */
const TARGETS_KIND = 'layer-chain-targets';
const RESULTS_KIND = 'layer-chain-results';

/** Builds the chain activities over the host's store. */
export const createLayerChainActivities = (deps: ActivityDeps) => {
  const { store } = deps;
  const { layers } = store;
  const { read, keep } = chainArtifacts(store, 'layer chain');
  const resultsOf = async (chunks: string[]): Promise<LayerTargetResult[]> => (await Promise.all(chunks.map((id) => read<LayerTargetResult[]>(id)))).flat();

  return {
    /** Stores one run's target results under `id` and, the first time, the targets of the whole chain (once each: a retry stores nothing twice). */
    async keepLayerResults(input: { id: string; results: LayerTargetResult[]; targets?: { id: string; keys: string[] } }): Promise<void> {
      if (input.targets) await keep(input.targets.id, TARGETS_KIND, input.targets.keys);
      await keep(input.id, RESULTS_KIND, input.results);
    },

    /** The chain's targets from index `from` on. */
    async layerTargetsLeft(input: { id: string; from: number }): Promise<string[]> {
      return (await read<string[]>(input.id)).slice(input.from);
    },

    /**
     * The global part's context over the whole chain: the insights of the earlier runs' targets
     * (`chunks`) and this run's, reduced into one context under `key`, and every target's state.
     */
    async reduceLayerChain(input: {
      key: string;
      chunks: string[];
      results: Pick<LayerTargetResult, 'target' | 'status' | 'insightIds'>[];
      includeUnparsed: boolean;
    }): Promise<{ insights: ContextRef; targets: NonNullable<TargetContext['targets']> }> {
      const all = [...(await resultsOf(input.chunks)), ...input.results];
      const kept = (await layers.insightsByIds(all.flatMap((r) => r.insightIds))).filter((i) => input.includeUnparsed || !i.unparsed);
      await layers.putContext(input.key, kept.map((i) => i.id));
      const count = (await layers.getContext(input.key))?.length ?? 0;
      return { insights: { key: input.key, count }, targets: all.map((r) => ({ key: r.target, status: r.status })) };
    },

    /** Builds the record of the whole chain from the earlier runs' results and this run's, stores it (once) and returns it. */
    async recordLayerChain(input: {
      id: string;
      input: LayerInput;
      layer: LayerSpec;
      startedAt: string;
      endedAt: string;
      chunks: string[];
      targets: LayerTargetResult[];
      global?: LayerTargetResult;
    }): Promise<LayerRunRecord> {
      const targets = [...(await resultsOf(input.chunks)), ...input.targets];
      const record = buildLayerRunRecord({ id: input.id, input: input.input, startedAt: input.startedAt, endedAt: input.endedAt, targets, global: input.global });
      await layers.putLayerRun(record, input.layer);
      return recordForResult((await layers.getLayerRun(input.id)) ?? record);
    },
  };
};

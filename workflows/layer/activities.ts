import { proxyActivities } from '@temporalio/workflow';
import type { DexActivities } from '../../activities';
import { layerTargetPolicy, llmPolicy, storePolicy } from '../run/policies';
import { summarized } from '../run/summarized';

/** The activities of a layer run, on the host queue of the machine that holds its store and templates. */
export function layerActivities(hostQueue: string) {
  const on = { taskQueue: hostQueue };
  const { callLayerModel } = proxyActivities<DexActivities>({ ...llmPolicy, ...on });
  const local = proxyActivities<DexActivities>({ ...storePolicy, ...on });
  const { runLayerTargets } = proxyActivities<DexActivities>({ ...layerTargetPolicy, ...on });
  return summarized({
    runLayerTargets,
    callLayerModel,
    resolveLayerTargets: local.resolveLayerTargets,
    reserveLayerSalience: local.reserveLayerSalience,
    settleLayerSalience: local.settleLayerSalience,
    refundTargetSalience: local.refundTargetSalience,
    // Only for runs started by release 2026-11-22-0603 (core/layer/target/target-salience.ts perAttempt).
    spendTargetSalience: local.spendTargetSalience,
    fetchLayerMessages: local.fetchLayerMessages,
    fetchLayerInsights: local.fetchLayerInsights,
    reduceLayerResults: local.reduceLayerResults,
    renderLayerPrompt: local.renderLayerPrompt,
    storeLayerInsight: local.storeLayerInsight,
    writeLayerText: local.writeLayerText,
    recordLayerRun: local.recordLayerRun,
    keepLayerResults: local.keepLayerResults,
    layerTargetsLeft: local.layerTargetsLeft,
    reduceLayerChain: local.reduceLayerChain,
    recordLayerChain: local.recordLayerChain,
  });
}

/** The activities of a layer run, as its workflows call them. */
export type LayerActivities = ReturnType<typeof layerActivities>;

/**
 * `runLayerTargets`: a few layer targets' nodes in one activity, the targets at once
 * (docs/layers.md#where-a-target-runs). Each runs the very code a target's child workflow runs
 * (core/layer/target/target-run.ts), calling the layer's step functions directly instead of as
 * activities. Every step is keyed in the store (fetched ids, ledger entries, model replies,
 * insights), so a retried attempt walks the nodes again and finds each finished step's result:
 * a model call that answered is never asked again.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { layerTargetInputOf } from '../../core/layer/layer-released';
import type { LayerTargetInput, LayerTargetResult } from '../../core/layer/layer-types';
import { NodeFailure, TARGET_ATTEMPTS, TargetRun } from '../../core/layer/target/target-run';
import type { TargetSteps } from '../../core/layer/target/target-steps';
import type { createLayerActivities } from './layer-activities';

type LayerFunctions = ReturnType<typeof createLayerActivities>;

/** Builds `runLayerTargets` over the layer activities the worker registers (one cassette reader for both). */
export const createLayerTargetActivities = (layer: LayerFunctions) => ({
  /**
   * Runs the targets at once, each through its nodes; a failure a target cannot get past is its
   * result, as in a child workflow. When a target meets an error a retry may fix, the activity
   * fails once every target has stopped, and Temporal's retry goes on from what was stored.
   */
  async runLayerTargets(inputs: LayerTargetInput[]): Promise<LayerTargetResult[]> {
    const steps = stepsOf(layer);
    const ended = await Promise.allSettled(
      inputs.map((started) => {
        const input = layerTargetInputOf(started);
        // The layer passes its run's cassette scope (workflows/layer/children.ts); a child workflow reads its root instead.
        return new TargetRun(input, steps, input.cassetteScope ?? input.runId).runAll((err) => !endsTheTarget(err));
      }),
    );
    const retry = ended.find((e): e is PromiseRejectedResult => e.status === 'rejected');
    if (retry) throw retry.reason;
    return ended.map((e) => (e as PromiseFulfilledResult<LayerTargetResult>).value);
  },
});

/** The step functions, each heartbeating its summary first: the Web UI's pending activity shows the step a target is at. */
function stepsOf(layer: LayerFunctions): TargetSteps {
  const step =
    <I, R>(fn: (input: I) => Promise<R>) =>
    (input: I, summary: string): Promise<R> => {
      Context.current().heartbeat(summary);
      return fn(input);
    };
  return {
    fetchLayerMessages: step(layer.fetchLayerMessages),
    fetchLayerInsights: step(layer.fetchLayerInsights),
    renderLayerPrompt: step(layer.renderLayerPrompt),
    reserveLayerSalience: step(layer.reserveLayerSalience),
    settleLayerSalience: step(layer.settleLayerSalience),
    refundTargetSalience: step(layer.refundTargetSalience),
    spendTargetSalience: step(layer.spendTargetSalience),
    callLayerModel: step(layer.callLayerModel),
    storeLayerInsight: step(layer.storeLayerInsight),
    writeLayerText: step(layer.writeLayerText),
  };
}

/**
 * Whether `err` fails the target now, as it would fail a target's child workflow: a node that
 * cannot go on, an error no retry fixes, or any error on the last attempt. Anything else is
 * thrown, and Temporal retries the activity, which goes on from the steps stored.
 */
function endsTheTarget(err: unknown): boolean {
  if (err instanceof CancelledFailure) return false;
  if (err instanceof NodeFailure) return true;
  if (err instanceof ApplicationFailure && err.nonRetryable) return true;
  return Context.current().info.attempt >= TARGET_ATTEMPTS;
}

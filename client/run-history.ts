/**
 * What the CLI reads of a run's recorded history (never its id): the input it started with, the
 * child workflows it started, an activity's result and the decisions people sent it. `dex log`
 * and `dex diff` use it.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import { tsToMs } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';
import type { DecideInput, DecideResult } from '../core/run/definitions';

/** A decision a run took at a gate, as its history holds it: through `decide` (which says the gate) or a signal. */
export type GateDecision = DecideInput & Partial<DecideResult> & { via: 'decide' | 'signal' };

type History = temporal.api.history.v1.IHistory;
type Payloads = temporal.api.common.v1.IPayloads | null | undefined;

const first = (payloads: Payloads): unknown => {
  const payload = payloads?.payloads?.[0];
  return payload ? defaultPayloadConverter.fromPayload(payload) : undefined;
};

/** One activity a run called, as its history holds it: what it was given, and what it returned or why it failed. */
interface ActivityCall {
  type: string;
  /** When the run scheduled it, on the server's clock (ms since the epoch). */
  at: number;
  input: unknown;
  result?: unknown;
  /** Set when its last attempt failed (or timed out): the failure's message. */
  failure?: string;
}

/** A run's recorded history (of its latest run, after continue-as-new), read once. */
export class RunHistory {
  private constructor(private readonly history: History) {}

  static async of(handle: WorkflowHandle, runId?: string): Promise<RunHistory> {
    const history = await (runId ? handle.client.getHandle(handle.workflowId, runId) : handle).fetchHistory();
    await decodeRead(history, handle.client.options.loadedDataConverter.payloadCodecs);
    return new RunHistory(history);
  }

  /** Every run of the chain `handle` names (docs/roadmaps.md#long-roadmaps), first to last, each read once. */
  static async chain(handle: WorkflowHandle): Promise<RunHistory[]> {
    const runs = [await RunHistory.of(handle)];
    for (let before = runs[0].continuedFrom(); before; before = runs[0].continuedFrom()) runs.unshift(await RunHistory.of(handle, before));
    return runs;
  }

  /** The run this one continued as new from, if it did. */
  private continuedFrom(): string | undefined {
    return this.events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }

  /** When the run started, on the server's clock (ms since the epoch). */
  startedAt(): number {
    const at = this.events[0]?.eventTime;
    return at ? tsToMs(at) : 0;
  }

  /** The activities of `types` the run called and that ended, in the order it scheduled them. */
  activityCalls(types: ReadonlySet<string>): ActivityCall[] {
    const calls = new Map<string, ActivityCall>();
    for (const e of this.events) {
      const scheduled = e.activityTaskScheduledEventAttributes;
      if (scheduled && types.has(scheduled.activityType?.name ?? '')) {
        calls.set(String(e.eventId), { type: scheduled.activityType!.name!, at: e.eventTime ? tsToMs(e.eventTime) : 0, input: first(scheduled.input) });
      }
      const done = e.activityTaskCompletedEventAttributes;
      const call = (id: unknown) => calls.get(String(id));
      if (done && call(done.scheduledEventId)) call(done.scheduledEventId)!.result = first(done.result);
      const failed = e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes;
      if (failed && call(failed.scheduledEventId)) call(failed.scheduledEventId)!.failure = innermost(failed.failure) ?? 'failed';
    }
    return [...calls.values()].filter((c) => 'result' in c || c.failure);
  }

  /**
   * The run's first argument alone: one event read, not the whole history, so `dex status` of a
   * long run stays cheap.
   */
  static async inputOf<T>(handle: WorkflowHandle): Promise<T | undefined> {
    const { client } = handle;
    const page = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId: handle.workflowId },
      maximumPageSize: 1,
    });
    const history: History = { events: page.history?.events?.slice(0, 1) ?? [] };
    await decodeRead(history, client.options.loadedDataConverter.payloadCodecs);
    return new RunHistory(history).input<T>();
  }

  private get events(): temporal.api.history.v1.IHistoryEvent[] {
    return this.history.events ?? [];
  }

  /** The run's first argument, as it started (after continue-as-new: as this run started). */
  input<T>(): T | undefined {
    return first(this.events[0]?.workflowExecutionStartedEventAttributes?.input) as T | undefined;
  }

  /**
   * The workflow ids of the run's children, in order: those its earlier runs started (a roadmap
   * carries its tasks across continue-as-new in its input), then those this run started.
   */
  children(): string[] {
    const carried = this.input<{ carried?: { tasks?: { workflowId?: string }[] } }>()?.carried?.tasks ?? [];
    const started = this.events.map((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId);
    return [...new Set([...carried.map((t) => t.workflowId), ...started].filter((id): id is string => !!id))];
  }

  /**
   * The `approve` and `reject` decisions the run took, in order: accepted `decide` updates with
   * the gate each passed, and the signals (the stock CLI's way), which name no gate.
   */
  decisions(): GateDecision[] {
    const gates = new Map(
      this.events
        .map((e) => e.workflowExecutionUpdateCompletedEventAttributes)
        .filter((c) => c?.meta?.updateId && c.outcome?.success)
        .map((c) => [c!.meta!.updateId!, first(c!.outcome!.success) as DecideResult | undefined]),
    );
    return this.events.flatMap((e): GateDecision[] => {
      const update = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
      if (update?.input?.name === 'decide') {
        const passed = gates.get(update.meta?.updateId ?? '');
        return [{ ...(first(update.input.args) as DecideInput), ...passed, via: 'decide' }];
      }
      const signal = e.workflowExecutionSignaledEventAttributes;
      if (signal?.signalName === 'approve' || signal?.signalName === 'reject') {
        return [{ ...((first(signal.input) ?? {}) as object), action: signal.signalName, via: 'signal' } as GateDecision];
      }
      return [];
    });
  }

  /** The result of the first completed activity of type `activityType`, if one completed. */
  activityResult<T>(activityType: string): T | undefined {
    const scheduled = new Set(
      this.events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activityType).map((e) => String(e.eventId)),
    );
    const done = this.events.find(
      (e) => e.activityTaskCompletedEventAttributes && scheduled.has(String(e.activityTaskCompletedEventAttributes.scheduledEventId)),
    );
    return first(done?.activityTaskCompletedEventAttributes?.result) as T | undefined;
  }
}

/** The message at the bottom of a failure's causes. */
function innermost(failure: temporal.api.failure.v1.IFailure | null | undefined): string | undefined {
  let f = failure;
  while (f?.cause) f = f.cause;
  return f?.message ?? undefined;
}

/**
 * Unseals, in place, the payloads this class reads (the start input, activity results) when the
 * client has a codec (docs/production.md#payload-encryption); history comes from the server as
 * it was stored.
 */
async function decodeRead(history: History, codecs: PayloadCodec[]): Promise<void> {
  if (!codecs.length) return;
  const unseal = async (holder: Payloads): Promise<void> => {
    if (!holder?.payloads?.length) return;
    let payloads = holder.payloads as Payload[];
    for (const codec of [...codecs].reverse()) payloads = await codec.decode(payloads);
    holder.payloads = payloads;
  };
  for (const e of history.events ?? []) {
    await unseal(e.workflowExecutionStartedEventAttributes?.input);
    await unseal(e.activityTaskScheduledEventAttributes?.input);
    await unseal(e.activityTaskCompletedEventAttributes?.result);
    await unseal(e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.args);
    await unseal(e.workflowExecutionUpdateCompletedEventAttributes?.outcome?.success);
    await unseal(e.workflowExecutionSignaledEventAttributes?.input);
  }
}

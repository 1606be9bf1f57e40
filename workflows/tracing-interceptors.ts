/**
 * The workflow half of tracing (docs/production.md#traces), bundled into workflow code only
 * when tracing is on (tracing/worker-tracing.ts): spans for the run and for each activity and
 * child it starts, the context carried in Temporal headers so the activities' spans join the
 * trace of the command that started the run. Spans leave the sandbox through the `exporter`
 * sink; they take their times from the workflow clock and add no command, so replay is unchanged.
 */
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import type { Next, QueryInput, WorkflowInboundCallsInterceptor, WorkflowInterceptorsFactory } from '@temporalio/workflow';

/** Queries pass untraced: a command polls the status every second, and a span each would drown the run's trace. */
class DexInboundInterceptor extends OpenTelemetryInboundInterceptor {
  override handleQuery(input: QueryInput, next: Next<WorkflowInboundCallsInterceptor, 'handleQuery'>): Promise<unknown> {
    return next(input);
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [new DexInboundInterceptor()],
  outbound: [new OpenTelemetryOutboundInterceptor()],
  internals: [new OpenTelemetryInternalsInterceptor()],
});

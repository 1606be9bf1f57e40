/**
 * What tracing adds to a worker (docs/production.md#traces): the activity interceptors, which
 * open each activity's span as a child of the workflow's (its context comes in the activity's
 * headers), and the sink through which the workflow sandbox hands its spans out. Nothing when
 * tracing is off.
 */
import type { WorkerOptions } from '@temporalio/worker';
import { join } from 'node:path';
import { tracing } from './tracing';
import type * as OtelWorker from '@temporalio/interceptors-opentelemetry/lib/worker';

/** The workflow interceptor modules to bundle: dex's tracing module when tracing is on. */
export function tracedWorkflowModules(): string[] {
  return tracing() ? [join(__dirname, '..', 'workflows', 'tracing-interceptors.ts')] : [];
}

/** The workflow worker's sinks: the span exporter, when tracing is on. */
export function workflowTracingOptions(): Pick<WorkerOptions, 'sinks'> {
  const traced = tracing();
  if (!traced) return {};
  const { makeWorkflowExporter } = require('@temporalio/interceptors-opentelemetry/lib/worker') as typeof OtelWorker;
  return { sinks: { exporter: makeWorkflowExporter(traced.spanProcessor, traced.resource) } };
}

/** The activity worker's interceptors, when tracing is on. */
export function activityTracingOptions(): Pick<WorkerOptions, 'interceptors'> {
  if (!tracing()) return {};
  const otel = require('@temporalio/interceptors-opentelemetry/lib/worker') as typeof OtelWorker;
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new otel.OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new otel.OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
  };
}

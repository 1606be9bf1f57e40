/**
 * Traces (docs/production.md#traces): one OpenTelemetry trace per run, from the command that
 * started it through the workflow to each activity (model call, tool call, commit). On only
 * when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (or a test installs a span processor): otherwise
 * nothing is loaded, no interceptor is added and the workflow bundle is the plain one.
 *
 * The OpenTelemetry packages load on demand (require, as this CommonJS code runs under tsx's
 * CommonJS hook), so a command without tracing pays nothing for them.
 */
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { DescribeWorkflowExecutionResponse, Next, WorkflowClientInterceptor, WorkflowDescribeInput, WorkflowQueryInput } from '@temporalio/client';
import type * as AsyncHooks from '@opentelemetry/context-async-hooks';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as Resources from '@opentelemetry/resources';
import type * as TraceBase from '@opentelemetry/sdk-trace-base';
import type * as OtelClient from '@temporalio/interceptors-opentelemetry/lib/client';

/** The process's tracing, once on. */
interface Tracing {
  spanProcessor: SpanProcessor;
  resource: Resource;
  /** Exports what is buffered; a command calls it before it exits. */
  flush(): Promise<void>;
}

/** undefined: not decided yet; null: off for this process. */
let current: Tracing | null | undefined;

/** A collector that does not answer must not hold a command's exit for long. */
const FLUSH_TIMEOUT_MS = 5_000;

/** This process's tracing: on when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, decided once. */
export function tracing(env: NodeJS.ProcessEnv = process.env): Tracing | undefined {
  if (current === undefined) current = env.OTEL_EXPORTER_OTLP_ENDPOINT ? installTracing(otlpProcessor(), env) : null;
  return current ?? undefined;
}

/** A batching OTLP/HTTP exporter; it reads the endpoint, headers and timeout from the standard OTEL_EXPORTER_OTLP_* variables. */
function otlpProcessor(): SpanProcessor {
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp;
  const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof TraceBase;
  return new BatchSpanProcessor(new OTLPTraceExporter());
}

/**
 * Turns tracing on with `spanProcessor` (a test passes an in-memory one): a global tracer
 * provider with W3C trace-context propagation, which the SDK's interceptors use to carry the
 * trace through Temporal headers, and an AsyncLocalStorage context, so an activity's own code
 * sees its span as the active one.
 */
export function installTracing(spanProcessor: SpanProcessor, env: NodeJS.ProcessEnv = process.env): Tracing {
  const { BasicTracerProvider } = require('@opentelemetry/sdk-trace-base') as typeof TraceBase;
  const { Resource: ResourceClass } = require('@opentelemetry/resources') as typeof Resources;
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks') as typeof AsyncHooks;
  const resource = new ResourceClass({ 'service.name': env.OTEL_SERVICE_NAME || 'dex' });
  const provider = new BasicTracerProvider({ resource });
  provider.addSpanProcessor(spanProcessor);
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable() });
  current = { spanProcessor, resource, flush: () => provider.forceFlush() };
  return current;
}

/** Exports what is buffered, within a few seconds; nothing when tracing is off. */
export async function flushTracing(): Promise<void> {
  if (!current) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, FLUSH_TIMEOUT_MS)));
  await Promise.race([current.flush().catch(() => undefined), timeout]);
  clearTimeout(timer);
}

/**
 * The client interceptors: a span for starting a run, signalling it (approve, reject…) and
 * cancelling it, its context sent in the headers so the workflow's spans join the same trace.
 * Queries and describes pass untraced: `dex task` polls the status every second, and a span
 * each would drown the trace.
 */
export function clientInterceptors(): WorkflowClientInterceptor[] {
  if (!tracing()) return [];
  const { OpenTelemetryWorkflowClientInterceptor } = require('@temporalio/interceptors-opentelemetry/lib/client') as typeof OtelClient;
  class DexClientInterceptor extends OpenTelemetryWorkflowClientInterceptor {
    override query(input: WorkflowQueryInput, next: Next<WorkflowClientInterceptor, 'query'>): Promise<unknown> {
      return next(input);
    }
    override describe(input: WorkflowDescribeInput, next: Next<WorkflowClientInterceptor, 'describe'>): Promise<DescribeWorkflowExecutionResponse> {
      return next(input);
    }
  }
  return [new DexClientInterceptor()];
}

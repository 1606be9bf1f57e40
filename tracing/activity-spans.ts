/**
 * What a trace shows of a model call (docs/production.md#traces): the model, its tokens and
 * their cost, set on the activity's span (the activity interceptor makes it the active span).
 * Token names follow OpenTelemetry's gen_ai conventions; the rest are dex's own. When tracing
 * is off there is no active span, and this costs one lookup.
 */
import { trace } from '@opentelemetry/api';
import type { TokenUsage } from '../core/run/run-types';

/** The fields every model activity's result has. */
interface ModelCallOutcome {
  usage: TokenUsage;
  costUsd: number;
  model?: string;
  /** The reply was read from the store (a retried activity): no tokens were spent again. */
  reused?: boolean;
}

/** Records `outcome` on the active span and returns it, so a return statement can pass through it. */
export function onModelSpan<T extends ModelCallOutcome>(outcome: T, model?: string): T {
  const span = trace.getActiveSpan();
  if (!span) return outcome;
  const { usage, costUsd } = outcome;
  span.setAttributes({
    'gen_ai.system': 'anthropic',
    'gen_ai.request.model': outcome.model ?? model ?? 'unknown',
    'gen_ai.usage.input_tokens': usage.input,
    'gen_ai.usage.output_tokens': usage.output,
    'dex.tokens.cache_read': usage.cacheRead,
    'dex.tokens.cache_write': usage.cacheWrite,
    'dex.cost_usd': costUsd,
    'dex.reused': outcome.reused ?? false,
  });
  return outcome;
}

/** Names the tool a tool-call activity ran, on its span. */
export function onToolSpan(tool: string, isError?: boolean): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  span.setAttribute('dex.tool.name', tool);
  if (isError !== undefined) span.setAttribute('dex.tool.is_error', isError);
}

/**
 * Runs one tool call of a turn inside a span of its own (`RunTool`, a child of the turn's
 * `RunActivity:runTurnTools`, named by onToolSpan), so a trace still shows each call when a
 * turn's calls share one activity; without tracing it just runs `fn`.
 */
export function inToolSpan<T>(toolUseId: string, fn: () => Promise<T>): Promise<T> {
  return inChildSpan('RunTool', { 'dex.tool.use_id': toolUseId }, fn);
}

/**
 * Runs a model turn that a model call answers after its first (activities/model/reading-turns.ts)
 * inside a span of its own (`ModelTurn`, a child of `RunActivity:callModel`), which onModelSpan
 * then fills as it fills the activity's span for the first turn: each turn keeps its tokens and cost.
 */
export function inModelTurnSpan<T>(replySeq: number, fn: () => Promise<T>): Promise<T> {
  return inChildSpan('ModelTurn', { 'dex.transcript.seq': replySeq }, fn);
}

function inChildSpan<T>(name: string, attributes: Record<string, string | number>, fn: () => Promise<T>): Promise<T> {
  if (!trace.getActiveSpan()) return fn();
  return trace.getTracer('dex').startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn();
    } finally {
      span.end();
    }
  });
}

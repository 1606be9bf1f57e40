/**
 * Traces (docs/production.md#traces): one task run, started through a client with dex's
 * interceptors, on a worker with tracing on, is one trace in an in-memory exporter: the start,
 * the workflow, and a span for each model call (with its tokens and cost) and each tool call.
 */
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Client } from '@temporalio/client';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientInterceptors, installTracing } from '../../../tracing/tracing';
import { costOf } from '../../../core/run/pricing';
import type { TaskResult } from '../../../core/task/task-types';
import { fixSumTurns, TEST_MODEL, toJsonl } from '../../support/model/cassette-builder';
import { runDex } from '../../support/env/dex-cli';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { sampleRepo, taskInput } from '../../support/env/dev-server-env';

// Before the environment's worker is made: tracing is decided once per process.
const exporter = new InMemorySpanExporter();
installTracing(new SimpleSpanProcessor(exporter));

const CASSETTE = fixSumTurns('T-traced');
const dex = useDexEnvironment({ server: 'dev', cassette: CASSETTE, queue: 'dex-it-tracing' });

/** The spans so far, once `name` is among them (workflow spans leave the sandbox after its activation). */
async function spansWith(name: string): Promise<ReadableSpan[]> {
  for (let i = 0; i < 100 && !exporter.getFinishedSpans().some((s) => s.name === name); i++) await new Promise((r) => setTimeout(r, 50));
  return exporter.getFinishedSpans();
}

describe('traces', () => {
  it('has one trace from the start of a task through its workflow to each model call, tool call and commit', async () => {
    const client = new Client({ connection: dex.env.connection, interceptors: { workflow: clientInterceptors() } });
    const handle = await client.workflow.start('taskWorkflow', {
      workflowId: 'task-math-T-traced-1',
      taskQueue: dex.worker.taskQueue,
      args: [taskInput('T-traced', sampleRepo(), dex.worker.hostQueue)],
    });
    expect(((await handle.result()) as TaskResult).state).toBe('completed');

    const spans = await spansWith('RunWorkflow:taskWorkflow');
    const start = spans.find((s) => s.name === 'StartWorkflow:taskWorkflow');
    expect(start).toBeDefined();
    const traceId = start!.spanContext().traceId;
    const inTrace = spans.filter((s) => s.spanContext().traceId === traceId);
    const named = (name: string) => inTrace.filter((s) => s.name === name);

    const run = named('RunWorkflow:taskWorkflow');
    expect(run).toHaveLength(1);
    expect(run[0].parentSpanId).toBe(start!.spanContext().spanId);

    // One span per model turn, in the cassette's order, each with its tokens and cost: a call's first turn on the activity's
    // span, the edit the first call answered after its reading turn on a ModelTurn span within it.
    const calls = named('RunActivity:callModel');
    expect(calls).toHaveLength(2);
    expect(named('ModelTurn')).toHaveLength(1);
    expect(calls.map((c) => c.spanContext().spanId)).toContain(named('ModelTurn')[0].parentSpanId);
    const models = [...calls, ...named('ModelTurn')].sort((a, b) => Number(a.startTime[0] - b.startTime[0]) || a.startTime[1] - b.startTime[1]);
    expect(models).toHaveLength(CASSETTE.length);
    models.forEach((span, i) => {
      const usage = CASSETTE[i].response.usage;
      const tokens = { input: usage.input_tokens, output: usage.output_tokens, cacheRead: usage.cache_read_input_tokens ?? 0, cacheWrite: usage.cache_creation_input_tokens ?? 0 };
      expect(span.attributes).toMatchObject({
        'gen_ai.request.model': TEST_MODEL,
        'gen_ai.usage.input_tokens': tokens.input,
        'gen_ai.usage.output_tokens': tokens.output,
        'dex.tokens.cache_read': tokens.cacheRead,
        'dex.tokens.cache_write': tokens.cacheWrite,
        'dex.reused': false,
      });
      expect(span.attributes['dex.cost_usd']).toBeCloseTo(costOf(TEST_MODEL, tokens), 10);
    });

    // One span per tool call, naming its tool, inside its turn's activity: the read alone within its model call, the edit in
    // the turn's runTurnTools; and the commit.
    const spanOf = (tool: string) => named('RunTool').find((s) => s.attributes['dex.tool.name'] === tool)!;
    const idsOf = (name: string) => named(name).map((s) => s.spanContext().spanId);
    expect(named('RunTool')).toHaveLength(2);
    expect(idsOf('RunActivity:callModel')).toContain(spanOf('read_file').parentSpanId);
    expect(idsOf('RunActivity:runTurnTools')).toContain(spanOf('edit_file').parentSpanId);
    expect(named('RunActivity:commitCheckpoint')).toHaveLength(1);
    // Each activity's span is a child of the workflow's span that scheduled it.
    const scheduled = new Set(named('StartActivity:callModel').map((s) => s.spanContext().spanId));
    for (const span of calls) expect(scheduled.has(span.parentSpanId!)).toBe(true);
    // Status queries stay out of the trace.
    expect(spans.some((s) => /Query/.test(s.name))).toBe(false);
  });

  it('exports over OTLP from the dex command itself when OTEL_EXPORTER_OTLP_ENDPOINT is set, before it exits', async () => {
    const bodies: string[] = [];
    const collector = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => (body += d));
      req.on('end', () => {
        bodies.push(`${req.url} ${body}`);
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      const repo = sampleRepo();
      const cassette = join(repo, '..', 'otlp.jsonl');
      writeFileSync(cassette, toJsonl(fixSumTurns('T-otlp')));
      const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
      const run = await runDex(['task', 'Fix sum', '--repo', repo, '--llm', `replay:${cassette}`, '--detach', '--unsafe-no-sandbox'], {
        env: { ...dex.cliEnv(), OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
        timeoutMs: 60_000,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(bodies.some((b) => b.startsWith('/v1/traces ') && b.includes('StartWorkflow:taskWorkflow'))).toBe(true);
    } finally {
      await new Promise((resolve) => collector.close(resolve));
    }
  });
});

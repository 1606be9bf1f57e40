import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { bundleFixture } from '../support/env/dev-server-env';
import { useDexEnvironment } from '../support/env/dex-environment';

// dex patches the SDK's promise hook (patches/@temporalio+worker+*.patch): it compiles its accessors
// of a workflow context once instead of on every promise, and formats a promise's stack trace only
// when a query reads it (docs/performance.md, "Promise hooks"). The stack-trace query behind the Web
// UI's "Stack Trace" tab must still show where each run waits, as the unpatched SDK does.

describe('the stack-trace query', () => {
  const dex = useDexEnvironment({ server: 'dev' });

  it('shows each of two waiting runs where it waits, with source-mapped paths', async () => {
    const { env } = dex;
    const workflowBundle = await bundleFixture('stack-trace-workflows.ts');
    const taskQueue = 'stack-trace';
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle });
    await worker.runUntil(async () => {
      const approval = await env.client.workflow.start('waitsForApproval', { taskQueue, workflowId: 'stack-approval' });
      const timer = await env.client.workflow.start('waitsOnTimer', { taskQueue, workflowId: 'stack-timer' });
      const approvalStack = await approval.query<string>('__stack_trace');
      const timerStack = await timer.query<string>('__stack_trace');
      // Both runs share one vm context: each promise must be filed under the run that made it.
      expect(approvalStack).toMatch(/waitsForApproval \(.*stack-trace-workflows\.ts:\d+:\d+\)/);
      expect(approvalStack).not.toContain('waitsOnTimer');
      expect(timerStack).toMatch(/waitsOnTimer \(.*stack-trace-workflows\.ts:\d+:\d+\)/);
      expect(timerStack).not.toContain('waitsForApproval');
      // The structured form behind the Web UI's view names the same function and file.
      const enhanced = await approval.query<{ stacks: { locations: { function_name?: string; file_path?: string }[] }[] }>('__enhanced_stack_trace');
      const locations = enhanced.stacks.flatMap((stack) => stack.locations);
      expect(locations.some((l) => l.function_name === 'waitsForApproval' && /stack-trace-workflows\.ts$/.test(l.file_path ?? ''))).toBe(true);
      // Promise.all: one stack for the aggregate at the workflow's line, not the aggregator's inner promises.
      const both = await env.client.workflow.start('waitsForBoth', { taskQueue, workflowId: 'stack-both' });
      const bothStack = await both.query<string>('__stack_trace');
      expect(bothStack).toMatch(/^\s+at all \(.*stack-trace-workflows\.ts:\d+:\d+\)$/);
      expect(bothStack).not.toMatch(/Promise\.then/);
      await Promise.all([approval.terminate('test over'), timer.terminate('test over'), both.terminate('test over')]);
    });
  }, 30_000);
});

import { ApplicationFailure } from '@temporalio/common';
import type { LogEntry } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workerLogLine } from '../../../client/server/runtime-logging';

const at = BigInt(Date.parse('2026-11-26T00:01:00.352Z')) * 1_000_000n;
const entry = (message: string, meta?: Record<string, unknown>, level: LogEntry['level'] = 'WARN'): LogEntry => ({ level, message, timestampNanos: at, meta });
const failure = ApplicationFailure.create({ type: 'TaskFailed', message: 'phase implement used all 2 turns without a verified completion', nonRetryable: true });

describe('the worker log (docs/production.md#the-worker-log)', () => {
  it('gives a run that failed in an ordinary way one line, also when its error reached the logger as a copy', () => {
    const meta = { sdkComponent: 'worker', workflowType: 'taskWorkflow', workflowId: 'task-math-fix-sum-1', runId: 'r' };
    const expected = '2026-11-26T00:01:00.352Z [WARN] Workflow failed: taskWorkflow task-math-fix-sum-1: phase implement used all 2 turns without a verified completion';
    // Out of the workflow sandbox the failure is a structured clone: a plain Error with its stack.
    expect(workerLogLine(entry('Workflow failed', { ...meta, error: structuredClone(failure) }))).toBe(expected);
    expect(workerLogLine(entry('Workflow failed', { ...meta, error: failure }))).toBe(expected.replace(': phase', ': TaskFailed: phase'));
  });

  it('gives an activity that failed in an ordinary way one line naming it and its attempt', () => {
    const rateLimited = ApplicationFailure.create({ type: 'ModelRateLimited', message: '429 slow down' });
    const line = workerLogLine(entry('Activity failed', { activityType: 'callModel', attempt: 3, workflowType: 'taskWorkflow', workflowId: 't-1', error: rateLimited }));
    expect(line).toBe('2026-11-26T00:01:00.352Z [WARN] Activity failed: callModel attempt 3 of taskWorkflow t-1: ModelRateLimited: 429 slow down');
  });

  it('keeps the whole of anything else, stack trace included: a bug to read', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'path')");
    const line = workerLogLine(entry('Activity failed', { activityType: 'runTool', error: bug }))!;
    expect(line).toContain("TypeError: Cannot read properties of undefined (reading 'path')");
    expect(line).toMatch(/\n\s+at /);
  });

  it("leaves out the SDK's warnings about what dex's workers do by design", () => {
    expect(workerLogLine(entry('No activities registered, not polling for activity tasks', { taskQueue: 'dex' }))).toBeUndefined();
    expect(workerLogLine(entry('No workflows registered, not polling for workflow tasks', { taskQueue: 'dex@h' }))).toBeUndefined();
    expect(workerLogLine(entry('Worker state changed', { state: 'RUNNING' }, 'INFO'))).toBe("2026-11-26T00:01:00.352Z [INFO] Worker state changed { state: 'RUNNING' }");
  });
});

import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import type { temporal } from '@temporalio/proto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { workflowBundle } from '../worker/start-worker';
import { quietRuntime } from './dev-server-env';

type History = temporal.api.history.v1.IHistory;

/** Recorded by test/task-workflow.integration.test.ts (DEX_RECORD_HISTORIES=1): blocked, approved, fixed, committed. */
const RECORDED = join(__dirname, 'histories', 'task-workflow-approve.json');

function recorded(): History & { events: Record<string, unknown>[] } {
  return JSON.parse(readFileSync(RECORDED, 'utf8'));
}

async function replay(history: History, workflowId: string): Promise<void> {
  await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, historyFromJSON(history), workflowId);
}

beforeAll(() => quietRuntime());

describe('replaying a recorded taskWorkflow history', () => {
  it('replays the recorded history with today\'s workflow code', async () => {
    await expect(replay(recorded(), 'task-math-T-approve-1')).resolves.toBeUndefined();
  });

  it('fails with a determinism error when the history says another activity ran first', async () => {
    const history = recorded();
    const scheduled = history.events.find((e) => e.activityTaskScheduledEventAttributes) as {
      activityTaskScheduledEventAttributes: { activityType: { name: string } };
    };
    expect(scheduled.activityTaskScheduledEventAttributes.activityType.name).toBe('prepareWorktree');
    scheduled.activityTaskScheduledEventAttributes.activityType.name = 'removeWorktree';
    await expect(replay(history, 'task-math-T-approve-1')).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});

describe('replaying a recorded roadmapWorkflow history', () => {
  it('replays a roadmap that waited in budget_exceeded and went on after approve', async () => {
    const history = JSON.parse(readFileSync(join(__dirname, 'histories', 'roadmap-workflow-budget.json'), 'utf8'));
    const started = history.events[0].workflowExecutionStartedEventAttributes;
    expect(started.workflowType.name).toBe('roadmapWorkflow');
    const id = (history.events as Record<string, any>[]).find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)!
      .startChildWorkflowExecutionInitiatedEventAttributes.workflowId as string;
    // Child ids derive from the roadmap's id (task-<repo>-<task>-<hash8> under roadmap-<repo>-<hash8>).
    const hash = /^task-math-B1-([0-9a-f]{8})$/.exec(id)![1];
    await expect(replay(history, `roadmap-math-${hash}`)).resolves.toBeUndefined();
  });
});

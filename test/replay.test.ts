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

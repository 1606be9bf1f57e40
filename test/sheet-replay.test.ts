import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { workflowBundle } from '../worker/start-worker';
import { quietRuntime } from './dev-server-env';

type History = temporal.api.history.v1.IHistory;
type Scheduled = { activityTaskScheduledEventAttributes: { activityType: { name: string }; input: unknown } };

/**
 * Recorded by test/sheet-workflow.integration.test.ts (DEX_RECORD_HISTORIES=1): a transaction whose
 * depth-1 statement fails, so three statements ran and their undos ran in reverse order.
 */
const RECORDED = join(__dirname, 'histories', 'sheet-workflow-transaction.json');
const WORKFLOW_ID = 'sheet-transaction-1';

function recorded(): History & { events: Record<string, unknown>[] } {
  return JSON.parse(readFileSync(RECORDED, 'utf8'));
}

async function replay(history: History): Promise<void> {
  await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, historyFromJSON(history), WORKFLOW_ID);
}

beforeAll(() => quietRuntime());

describe('replaying a recorded sheetWorkflow history', () => {
  it('replays the recorded transaction (three statements, one failure, three undos) with today\'s workflow code', async () => {
    const history = recorded();
    const activities = history.events.filter((e) => e.activityTaskScheduledEventAttributes) as Scheduled[];
    expect(activities.map((e) => e.activityTaskScheduledEventAttributes.activityType.name)).toEqual(Array(7).fill('runSheetCommand'));
    await expect(replay(history)).resolves.toBeUndefined();
  });

  it('fails with a determinism error when the history says a model call ran instead of the first command', async () => {
    const history = recorded();
    const first = history.events.find((e) => e.activityTaskScheduledEventAttributes) as Scheduled;
    first.activityTaskScheduledEventAttributes.activityType.name = 'answerPrompt';
    await expect(replay(history)).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});

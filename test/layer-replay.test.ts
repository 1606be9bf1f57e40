import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { workflowBundle } from '../worker/start-worker';
import { quietRuntime } from './dev-server-env';

type History = temporal.api.history.v1.IHistory & { events: Record<string, unknown>[] };

/**
 * Recorded by test/layer-workflow.integration.test.ts (DEX_RECORD_HISTORIES=1): five topics under
 * `repair`, the third answering prose first; the parent run and that third target's child.
 */
function recorded(file: string): History {
  return JSON.parse(readFileSync(join(__dirname, 'histories', file), 'utf8')) as History;
}

async function replay(history: History, workflowId: string): Promise<void> {
  await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, historyFromJSON(history), workflowId);
}

function scheduledActivities(history: History): { activityTaskScheduledEventAttributes: { activityType: { name: string } } }[] {
  return history.events.filter((e) => e.activityTaskScheduledEventAttributes) as never;
}

beforeAll(() => quietRuntime());

describe('replaying recorded layer histories', () => {
  it("replays the layerWorkflow history with today's workflow code", async () => {
    await expect(replay(recorded('layer-workflow-repair.json'), 'layer-repair-1')).resolves.toBeUndefined();
  });

  it("replays the layerTargetWorkflow history (fetch, render, call, store, repair call, store) with today's code", async () => {
    const history = recorded('layer-target-workflow-repair.json');
    expect(scheduledActivities(history).map((e) => e.activityTaskScheduledEventAttributes.activityType.name)).toContain('callLayerModel');
    await expect(replay(history, 'layer-repair-1/repair-3')).resolves.toBeUndefined();
  });

  it('fails with a determinism error when the history says another activity ran first', async () => {
    const history = recorded('layer-workflow-repair.json');
    const [first] = scheduledActivities(history);
    expect(first.activityTaskScheduledEventAttributes.activityType.name).toBe('resolveLayerTargets');
    first.activityTaskScheduledEventAttributes.activityType.name = 'recordLayerRun';
    await expect(replay(history, 'layer-repair-1')).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});

// docs/claude-code.md#durable-at-the-message: a worker killed mid-session; the retried activity resumes the session.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TaskResult } from '../../../core/task/task-types';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { commitsOnBranch, fileAt, sampleRepo, taskInput } from '../../support/env/dev-server-env';
import { openStoreFromEnv } from '../../../store/open-store';
import { crashWorker, killDexWorkers, spawnDexWorker } from '../../support/env/worker-process';

const TASK = 'T-cc-crash';
const QUEUE = 'dex-claude-crash';
const HOST_QUEUE = 'dex-claude-crash@host-a';
const FIX = "sed -i 's/return a - b;/return a + b;/' src/math.js";
const CASSETTE = [toolTurn(TASK, ['Bash', { command: FIX, description: 'fix sum' }]), completionTurn(TASK, { status: 'complete', summary: 'sum adds now' })];

const dex = useDexEnvironment({ server: 'dev', cassette: CASSETTE });
// Both workers are the same host: the session's file is where the retry looks for it.
const dexHome = mkdtempSync(join(tmpdir(), 'dex-claude-crash-home-'));

afterAll(() => killDexWorkers());

describe('a worker killed with SIGKILL in the middle of a Claude Code session', () => {
  it('resumes the same session in the retried activity, and the task ends with one commit', async ({ annotate }) => {
    const worker = () => spawnDexWorker({ address: dex.env.address, dexHome, taskQueue: QUEUE, hostQueue: HOST_QUEUE, anthropicUrl: dex.fake.url });
    const first = worker();
    // The session's second model call is held: the first turn (the fix) is done when the worker dies.
    const second = dex.fake.holdRequest({ task: TASK });
    const firstAnswered = new Promise<void>((resolve) => {
      const poll = setInterval(() => dex.requestsFor(TASK).length >= 1 && (clearInterval(poll), resolve()), 20);
    });
    const repo = sampleRepo();
    const handle = await dex.client.workflow.start('taskWorkflow', {
      workflowId: `task-math-${TASK}-1`,
      taskQueue: QUEUE,
      args: [taskInput(TASK, repo, HOST_QUEUE, { agents: { default: 'claude-code' } })],
    });
    await firstAnswered;
    await second.reached;
    await crashWorker(first);
    const killedAt = Date.now();
    worker();
    const result = (await handle.result()) as TaskResult;
    await annotate(`resumed and finished ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill`);

    expect(result.state).toBe('completed');
    expect(commitsOnBranch(repo, result.branch)).toHaveLength(1);
    expect(fileAt(repo, result.branch, 'src/math.js')).toContain('return a + b;');
    const requests = dex.requestsFor(TASK);
    // The first turn, the call that was in flight when the worker died, and the resumed session's call.
    expect(requests).toHaveLength(3);
    const resumed = JSON.stringify(requests[2].body?.messages);
    // The resumed session sends the earlier turn (the fix and its result), not a fresh start.
    expect(resumed).toContain(FIX.slice(0, 20));
    expect(resumed).toContain('tool_result');

    const { events } = await handle.fetchHistory();
    const started = (events ?? []).filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!);
    expect(started.some((s) => (s.attempt ?? 1) > 1)).toBe(true);
    // The transcript keeps the first turn once, then what the resumed session said.
    const store = await openStoreFromEnv(dexHome, {});
    try {
      const [transcript] = await store.listTranscripts(handle.workflowId);
      const messages = await store.listMessages(transcript);
      expect(messages.filter((m) => JSON.stringify(m.content).includes('sed -i'))).toHaveLength(1);
      expect(messages.at(-1)?.role).toBe('assistant');
    } finally {
      await store.close();
    }
  }, 180_000);
});

/**
 * What dex leaves running stays small (docs/architecture.md#what-runs-in-the-background): commands
 * with several queues and homes share one background workflow host, which answers every run's
 * status query, stays while a run is open, leaves once idle, comes back for the next command
 * serving the queues asked of it, and `dex server stop`'s stopBackground ends it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { sampleRepo, taskInput } from '../../support/env/dev-server-env';
import { pollerIdentities } from '../../../client/run/run-handles';
import { registeredHosts, registryDir } from '../../../client/server/host-registry';
import { stopBackground } from '../../../client/server/server-stop';
import { ensureWorkflowHost } from '../../../client/server/workflow-host';
import { readSettings, type Settings } from '../../../client/settings';
import { processExists } from '../../../host/process-owner';
import { statusQuery } from '../../../core/run/definitions';

const testEnv = useDexEnvironment({ server: 'dev' });

// An idle host leaves after 6 s here (30 min by default); the host inherits this.
process.env.DEX_WORKFLOW_HOST_IDLE = '6';

const homes = [0, 1, 2].map(() => mkdtempSync(join(tmpdir(), 'dex-hosts-home-')));
/** Three queues and three homes, one queue in two homes: what commands of one person might use. */
const combos = [
  { queue: 'hosts-a', home: homes[0] },
  { queue: 'hosts-b', home: homes[1] },
  { queue: 'hosts-a', home: homes[2] },
  { queue: 'hosts-c', home: homes[0] },
];

function settingsOf(combo: { queue: string; home: string }): Settings {
  return readSettings({ TEMPORAL_ADDRESS: testEnv.env.address, DEX_TASK_QUEUE: combo.queue, DEX_HOME: combo.home });
}

afterAll(async () => {
  await stopBackground(settingsOf(combos[0]), 2_000).catch(() => undefined);
  rmSync(registryDir(testEnv.env.address), { recursive: true, force: true });
  if (!process.env.KEEP) for (const home of homes) rmSync(home, { recursive: true, force: true });
});

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The pids of the dex workflow hosts polling `queue`. */
async function hostPids(queue: string): Promise<number[]> {
  const identities = await pollerIdentities(testEnv.client, 'default', queue, 'workflow');
  return identities.flatMap((i) => {
    const match = /^dex-workflows \S+ detached (\d+)@/.exec(i);
    return match && processExists(Number(match[1])) ? [Number(match[1])] : [];
  });
}

const live = () => registeredHosts(registryDir(testEnv.env.address)).flatMap((h) => (h.pid ? [h.pid] : []));

const answers = (handle: WorkflowHandle) =>
  until(`${handle.workflowId} answering its status query`, async () => (await testEnv.client.withDeadline(Date.now() + 3_000, () => handle.query(statusQuery))) ?? undefined);

describe('background workflow hosts', () => {
  it('one host serves every queue and home, stays while a run is open, leaves when idle and comes back for the queues of the next commands', async () => {
    const log: string[] = [];
    const handles: WorkflowHandle[] = [];
    for (const [i, combo] of combos.entries()) {
      const settings = settingsOf(combo);
      await ensureWorkflowHost(testEnv.client, settings, (line) => log.push(line), { wait: true });
      // The run's activities go to a queue no worker polls: it stays open, its workflow tasks on the host.
      const input = taskInput(`H${i}`, sampleRepo(), `${combo.queue}@nobody`);
      handles.push(await testEnv.client.workflow.start('taskWorkflow', { taskQueue: combo.queue, workflowId: `hosts-run-${i}`, args: [input] }));
    }
    expect(log.filter((l) => l.startsWith("starting dex's workflow host"))).toHaveLength(1);
    const [host] = live();
    expect(live()).toEqual([host]);
    for (const queue of ['hosts-a', 'hosts-b', 'hosts-c']) expect(await hostPids(queue)).toEqual([host]);
    for (const handle of handles) expect((await answers(handle)).state).toBeTruthy();

    // Open runs keep it, and each queue, past its idle time.
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    expect(processExists(host)).toBe(true);
    for (const queue of ['hosts-a', 'hosts-b', 'hosts-c']) expect(await hostPids(queue)).toEqual([host]);

    // With every run ended and nobody asking, it leaves.
    for (const handle of handles) await handle.terminate('the test ends it');
    await until('the idle host leaving', async () => (processExists(host) ? undefined : true), 30_000);
    expect(live()).toEqual([]);

    // The next command brings it back for its queue, and only that one: the others' runs ended long ago.
    await ensureWorkflowHost(testEnv.client, settingsOf(combos[1]), (line) => log.push(line), { wait: true });
    const [back] = live();
    expect(back).not.toBe(host);
    expect(await answers(handles[1])).toMatchObject({ state: expect.any(String) });
    expect(await hostPids('hosts-a')).toEqual([]);
    // Each command brings its queue back to the same host, and every run answers again.
    for (const combo of combos) await ensureWorkflowHost(testEnv.client, settingsOf(combo), (line) => log.push(line), { wait: true });
    expect(live()).toEqual([back]);
    for (const handle of handles) expect((await answers(handle)).state).toBeTruthy();
    for (const queue of ['hosts-a', 'hosts-b', 'hosts-c']) expect(await hostPids(queue)).toEqual([back]);

    // `dex server stop` stops it.
    const stopped = await stopBackground(settingsOf(combos[0]), 5_000);
    expect(stopped.hosts).toContain(back);
    expect(processExists(back)).toBe(false);
  }, 120_000);
});

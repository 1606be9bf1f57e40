import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ensureTemporalCli } from '../../../client/toolchain/toolchain';
import type { RunStatus } from '../../../core/run/run-types';
import { completionTurn, fixSumTurns, toJsonl } from '../../support/model/cassette-builder';
import { runDex } from '../../support/env/dex-cli';
import { useDexEnvironment, waitForGate } from '../../support/env/dex-environment';
import { sampleRepo } from '../../support/env/dev-server-env';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dex = useDexEnvironment({ server: 'dev', queue: 'dex-it-legible' });

/** The environment of a `dex` command against this file's server and worker. */
const cliEnv = (): NodeJS.ProcessEnv => dex.cliEnv({ workerQueues: true });

/** The run's answers: a question for a person, then the fix of `sum`. */
function cassetteFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dex-legible-')), 'run.cassette.jsonl');
  writeFileSync(file, toJsonl([completionTurn('*', { status: 'blocked', reason: 'May I change the public API of sum?' }), ...fixSumTurns('*')]));
  return file;
}

/** The dex search attributes of a run, as the server reports them. */
async function attributesOf(id: string): Promise<Record<string, unknown>> {
  const { searchAttributes } = await dex.client.workflow.getHandle(id).describe();
  return Object.fromEntries(Object.entries(searchAttributes).map(([k, v]) => [k, (v as unknown[])[0]]));
}

describe('a run that waits shows it everywhere a person looks', () => {
  it('search attributes, summary, current details and summarised steps; dex approve answers which gate it passed', { timeout: 120_000 }, async () => {
    const env = cliEnv();
    const started = await runDex(['task', 'Fix sum', '--repo', sampleRepo(), '--llm', `replay:${cassetteFile()}`, '--detach', '--json'], { env });
    expect(started.code, started.stderr).toBe(0);
    const id = JSON.parse(started.stdout).workflowId as string;
    const handle = dex.client.workflow.getHandle(id);
    await waitForGate(handle, 'blocked');

    await expect(attributesOf(id)).resolves.toMatchObject({ DexKind: 'task', DexState: 'waiting', DexWaitingFor: 'blocked', DexRepo: 'math', DexPhase: 'implement' });
    const listed = await dex.temporal('workflow', 'list', '--query', 'DexState="waiting" AND DexWaitingFor="blocked"', '-o', 'json');
    expect(listed).toContain(id);
    const dexList = await runDex(['list', '--state', 'waiting', '--json'], { env });
    expect(dexList.code, dexList.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(dexList.stdout))).toContain(id);

    const described = JSON.parse(await dex.temporal('workflow', 'describe', '--workflow-id', id, '-o', 'json'));
    expect(JSON.stringify(described)).toContain('Fix sum');
    const metadata = JSON.parse(await dex.temporal('workflow', 'metadata', '--workflow-id', id, '-o', 'json').catch(() => 'null'));
    const details = (metadata?.currentDetails ?? (await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata')).currentDetails) as string;
    expect(details).toContain('Waiting for you at gate `blocked`');
    expect(details).toContain(`dex approve ${id}`);
    expect(details).toContain(`temporal workflow signal --workflow-id ${id} --name approve`);

    const approved = await runDex(['approve', id, '--note', 'yes'], { env });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain('approved gate "blocked"');
    await handle.result();
    await expect(attributesOf(id)).resolves.toMatchObject({ DexState: 'completed', DexWaitingFor: '' });
    expect(((await handle.query<RunStatus>('status')).costUsd)).toBeGreaterThan(0);

    const scheduled = ((await handle.fetchHistory()).events ?? []).filter((event) => event.activityTaskScheduledEventAttributes);
    expect(scheduled.length).toBeGreaterThan(5);
    for (const event of scheduled) expect(event.userMetadata?.summary, `${event.activityTaskScheduledEventAttributes?.activityType?.name}`).toBeTruthy();

    const nothing = await runDex(['approve', id], { env });
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/nothing waits/);
  });

  it('dex setup-namespace registers dex\'s search attributes on a namespace that lacks them, once', { timeout: 60_000 }, async () => {
    execFileSync(ensureTemporalCli(), ['operator', 'namespace', 'create', '--namespace', 'dex-setup-test', '--address', dex.env.address]);
    const env = { ...cliEnv(), TEMPORAL_NAMESPACE: 'dex-setup-test' };
    const first = await runDex(['setup-namespace', '--json'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).added.sort()).toEqual(['DexCostUsd', 'DexKind', 'DexPhase', 'DexRepo', 'DexState', 'DexWaitingFor']);
    const listed = await dex.env.connection.operatorService.listSearchAttributes({ namespace: 'dex-setup-test' });
    expect(Object.keys(listed.customAttributes ?? {})).toEqual(expect.arrayContaining(['DexKind', 'DexState', 'DexWaitingFor', 'DexCostUsd']));
    const again = await runDex(['setup-namespace', '--json'], { env });
    expect(JSON.parse(again.stdout)).toMatchObject({ added: [], missing: [] });
  });
});

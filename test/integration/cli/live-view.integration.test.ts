/**
 * A run stays legible after the command that started it is gone (docs/architecture.md#who-serves-a-run):
 * a credential-free workflow host answers its queries and Current Details, a person answers its
 * gate from the stock CLI, and it goes on under a `dex worker` with its owner's key — never under
 * a worker with another key. And a run ended from outside is not listed as waiting.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { completionTurn, fixSumTurns, toJsonl } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { sampleRepo } from '../../support/env/dev-server-env';
import { runDex } from '../../support/env/dex-cli';
import { pollerIdentities } from '../../../client/run/run-handles';

const testEnv = useDexEnvironment({ server: 'dev' });

const spawned: ChildProcess[] = [];
afterAll(() => {
  for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** A real `dex worker …` process with the command's environment and `over` it. */
function dexWorker(args: string[], envVars: NodeJS.ProcessEnv, over: NodeJS.ProcessEnv = {}): ChildProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, ...envVars, ...over };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  const child = spawn(process.execPath, [join(__dirname, '..', '..', '..', 'bin', 'dex.js'), 'worker', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  spawned.push(child);
  return child;
}

function cassetteFile(lines: Parameters<typeof toJsonl>[0]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dex-cassette-')), 'run.cassette.jsonl');
  writeFileSync(file, toJsonl(lines));
  return file;
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The stock CLI's answer to the `status` query. */
async function statusFromStockCli(id: string): Promise<{ state: string; waitingFor: { gate: string } | null }> {
  const out = JSON.parse(await testEnv.temporal('workflow', 'query', '--workflow-id', id, '--type', 'status', '-o', 'json'));
  return out.queryResult[0];
}

describe('a run outlives its command', () => {
  it('a task left at its gate by a killed command answers queries and metadata, is approved from the stock CLI, and finishes under a dex worker with the same key', async () => {
    const envVars = testEnv.cliEnv();
    const host = dexWorker(['--workflows-only'], envVars);
    await until('the workflow host polling', async () =>
      (await pollerIdentities(testEnv.client, 'default', envVars.DEX_TASK_QUEUE!, 'workflow')).find((i) => i.startsWith('dex-workflows ')),
    );

    const cassette = cassetteFile([completionTurn('*', { status: 'blocked', reason: 'May I change src/math.js?' }), ...fixSumTurns('*')]);
    const run = await runDex(['task', 'Fix sum', '--repo', sampleRepo(), '--llm', `replay:${cassette}`], {
      env: envVars,
      onStderr: (stderr, child) => {
        if (stderr.includes('waiting at gate "blocked"') && child.signalCode === null && !stderr.includes('SIGTERM')) child.kill('SIGTERM');
      },
    });
    const id = /started (\S+)/.exec(run.stderr)![1];
    expect(run.code, run.stderr).toBe(143);
    expect(run.stderr).toContain(`SIGTERM: left ${id} as it is`);
    // The command's worker served activities only: the host ran the workflow.
    expect(run.stderr).not.toContain('bundling the workflows');

    // With the command gone, the host answers: the status query and the metadata query the Web UI shows as Current Details.
    expect(await statusFromStockCli(id)).toMatchObject({ state: 'waiting', waitingFor: { gate: 'blocked' } });
    const metadata = await testEnv.temporal('workflow', 'metadata', '--workflow-id', id);
    expect(metadata).toContain("Waiting for you at gate `blocked`");
    expect(metadata).toContain(`dex approve ${id}`);

    // Answered from the stock CLI; a worker with another person's key never takes the run's work.
    await testEnv.temporal('workflow', 'signal', '--workflow-id', id, '--name', 'approve', '--input', '{"note":"yes","by":"ana"}');
    const stranger = dexWorker([], envVars, { ANTHROPIC_API_KEY: 'someone-elses-key' });
    const handle = testEnv.client.workflow.getHandle(id);
    const pending = await until('the next activity scheduled', async () => {
      const described = await handle.describe();
      return described.raw.pendingActivities?.length ? described.raw.pendingActivities : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    const stillPending = (await handle.describe()).raw.pendingActivities ?? [];
    expect(stillPending.map((a) => [a.activityType?.name, a.attempt, String(a.state)])).toEqual(pending.map((a) => [a.activityType?.name, 1, '1']));
    stranger.kill('SIGTERM');
    // `dex status` says the run waits for a worker, not just "running".
    const starved = await runDex(['status', id], { env: envVars });
    expect(starved.stdout).toMatch(/its next step has waited \d+s for a worker: a run started in the foreground goes on under a `dex worker`/);

    // The owner's `dex worker` (same key, same DEX_HOME) carries it to its end.
    dexWorker([], envVars);
    const result = await handle.result();
    expect(result).toMatchObject({ state: 'completed' });
    expect((await statusFromStockCli(id)).state).toBe('completed');
    expect(await testEnv.temporal('workflow', 'metadata', '--workflow-id', id)).toMatch(/completed/);
    host.kill('SIGTERM');
  });

  it('a waiting run that was terminated is not listed as waiting, by dex list or the README query', async () => {
    const envVars = testEnv.cliEnv();
    const cassette = cassetteFile([completionTurn('*', { status: 'blocked', reason: 'May I?' })]);
    let terminated: Promise<string> | undefined;
    const run = await runDex(['task', 'Fix sum', '--repo', sampleRepo(), '--llm', `replay:${cassette}`], {
      env: envVars,
      onStderr: (stderr) => {
        const id = /started (\S+)/.exec(stderr)?.[1];
        if (id && !terminated && stderr.includes('waiting at gate "blocked"')) terminated = testEnv.temporal('workflow', 'terminate', '--workflow-id', id, '--reason', 'test');
      },
    });
    await terminated;
    const id = /started (\S+)/.exec(run.stderr)?.[1] ?? `no run started: ${run.stderr}`;
    expect(run.code, run.stderr).toBe(1);
    const list = await runDex(['list', '--state', 'waiting', '--json'], { env: envVars });
    expect(JSON.parse(list.stdout).map((r: { id: string }) => r.id)).not.toContain(id);
    const all = JSON.parse((await runDex(['list', '--json'], { env: envVars })).stdout) as { id: string; state: string }[];
    expect(all.find((r) => r.id === id)?.state).toBe('terminated');
    const ids = async (query: string) => (await testEnv.temporal('workflow', 'list', '--query', query, '-o', 'json')).includes(id);
    // Its last DexState is still "waiting" (nothing ran to change it); the README's query asks for open runs too.
    await until('visibility to show the terminated run', async () => ((await ids(`WorkflowId="${id}" AND ExecutionStatus="Terminated"`)) ? true : undefined));
    expect(await ids('DexState="waiting"')).toBe(true);
    expect(await ids('DexState="waiting" AND ExecutionStatus="Running"')).toBe(false);
  });

  it('--detach says when no worker polls the queues its run needs, instead of starting it silently', async () => {
    const envVars = testEnv.cliEnv();
    const run = await runDex(['task', 'Fix sum', '--repo', sampleRepo(), '--llm', `replay:${cassetteFile([completionTurn('*', { status: 'blocked', reason: 'May I?' })])}`, '--detach'], { env: envVars });
    expect(run.code, run.stderr).toBe(0);
    const id = /started (\S+)/.exec(run.stderr)![1];
    expect(run.stderr).toContain(`no worker polls ${envVars.DEX_TASK_QUEUE} (workflows) or ${envVars.DEX_HOST_QUEUE} (activities): ${id} waits until one does`);
    await testEnv.client.workflow.getHandle(id).terminate('test over');
  });
});

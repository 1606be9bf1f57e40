import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { completionTurn, fixSumTurns, toJsonl, toolTurn } from '../../support/model/cassette-builder';
import { checkoutFile, roadmapRepo } from '../../support/plans/roadmap-fixture';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { sampleRepo } from '../../support/env/dev-server-env';
import { runDex, type DexRun } from '../../support/env/dex-cli';

// No worker here: each dex command runs its own, on queues of its own.
const testEnv = useDexEnvironment({ server: 'dev' });

/** The environment of a dex command against this file's server, on queues no other test polls. */
const dexEnv = (): NodeJS.ProcessEnv => testEnv.cliEnv();

/** Runs `dex …` to its end; `onStderr` sees progress as it comes. */
function dex(args: string[], envVars: NodeJS.ProcessEnv, onStderr?: (text: string, child: ChildProcess) => void): Promise<DexRun> {
  return runDex(args, { env: envVars, onStderr });
}

function cassetteFile(lines: Parameters<typeof toJsonl>[0]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dex-cassette-')), 'run.cassette.jsonl');
  writeFileSync(file, toJsonl(lines));
  return file;
}

describe('the dex command on a real dev server', () => {
  it('dex demo --json fixes the sample repository and reports the commit, tokens and cost', async () => {
    const run = await dex(['demo', '--json'], dexEnv());
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.state).toBe('completed');
    expect(doc.result.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(doc.result.tokens).toEqual({ input: 1630, output: 290, cacheRead: 4608, cacheWrite: 1536 });
    expect(doc.result.costUsd).toBeGreaterThan(0);
    // Summed without float noise: whole 1e-8 dollars (docs/interfaces.md#what-a-run-spent).
    expect(String(doc.result.costUsd)).toMatch(/^0\.\d{1,8}$/);
  });

  it('dex demo prints the commit SHA, the tokens, the cost and the run; dex status and dex list find it', async () => {
    const envVars = dexEnv();
    const run = await dex(['demo'], envVars);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/commit: [0-9a-f]{40} on dex\//);
    expect(run.stdout).toMatch(/tokens: 7774 in \(4608 cache read, 1536 cache write\) \/ 290 out/);
    expect(run.stdout).toMatch(/cost: \$0\.\d{4} over 4 model turns/);
    expect(run.stderr).toMatch(/turn \d+ tool:edit_file/);
    const id = run.stdout.split(':')[0];

    const status = await dex(['status', id, '--json'], envVars);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).state).toBe('completed');
    const list = await dex(['list', '--json'], envVars);
    expect(JSON.parse(list.stdout).map((r: { id: string }) => r.id)).toContain(id);

    // The command's own worker took the first workflow task in the start call's reply (eager start):
    // the server records that task as started by the starting client, without a worker build id,
    // where a task dispatched through the queue carries the polling worker's.
    const { events } = await testEnv.client.workflow.getHandle(id).fetchHistory();
    const firstTask = events?.find((e) => e.workflowTaskStartedEventAttributes)?.workflowTaskStartedEventAttributes;
    const laterTask = events?.filter((e) => e.workflowTaskStartedEventAttributes).at(-1)?.workflowTaskStartedEventAttributes;
    expect(firstTask?.workerVersion?.buildId).toBeUndefined();
    expect(laterTask?.workerVersion?.buildId).toMatch(/@temporalio\/worker/);
  });

  it('--unsafe-no-sandbox runs where no sandbox can be had, and says so in progress, status and the Web UI memo', async () => {
    const envVars = { ...dexEnv(), DEX_BWRAP: '/nonexistent/bwrap' };
    const cassette = cassetteFile(fixSumTurns('*'));
    const run = await dex(['task', 'Fix sum', '--repo', sampleRepo(), '--llm', `replay:${cassette}`, '--unsafe-no-sandbox'], envVars);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^UNSANDBOXED: the agent's commands run unconfined/m);
    const progress = run.stderr.split('\n').filter((l) => /turn \d+/.test(l));
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((l) => l.startsWith('[UNSANDBOXED] '))).toBe(true);
    const id = run.stdout.split(':')[0];
    const status = await dex(['status', id, '--json'], envVars);
    expect(JSON.parse(status.stdout)).toMatchObject({ state: 'completed', sandbox: 'off' });
    expect((await testEnv.client.workflow.getHandle(id).describe()).memo).toEqual({ title: 'Fix sum', repo: 'math', sandbox: 'off' });
  });

  it('Ctrl-C on a task that waits at its gate cancels the run, and the command\'s worker carries that out before it exits 1', async () => {
    const cassette = cassetteFile([completionTurn('*', { status: 'blocked', reason: 'May I?' })]);
    const envVars = dexEnv();
    let interrupted = false;
    const run = await dex(['task', 'Fix sum', '--repo', sampleRepo(), '--llm', `replay:${cassette}`], envVars, (stderr, child) => {
      if (!interrupted && stderr.includes('waiting at gate "blocked"')) {
        interrupted = true;
        child.kill('SIGINT');
      }
    });
    expect(run.code, run.stderr).toBe(1);
    const id = /started (\S+)/.exec(run.stderr)![1];
    expect(run.stderr).toContain(`SIGINT: cancelling ${id}`);
    // CANCELLED, not a cancel request left pending: the command's worker carried the cancellation out before it exited.
    const described = await testEnv.client.workflow.getHandle(id).describe();
    expect(described.status.name).toBe('CANCELLED');
    expect(run.stdout).toContain(`${id}: cancelled`);
  });

  it('a blocked task waits; reject through the stock temporal CLI ends it rejected with exit 1', async () => {
    const cassette = cassetteFile([completionTurn('*', { status: 'blocked', reason: 'Is deleting the test fine?' })]);
    let signalled: Promise<unknown> | undefined;
    const run = await dex(['task', 'Fix sum', '--repo', sampleRepo(), '--llm', `replay:${cassette}`], dexEnv(), (stderr) => {
      const id = /started (\S+)/.exec(stderr)?.[1];
      if (id && !signalled && stderr.includes('waiting at gate "blocked"')) {
        signalled = testEnv.temporal('workflow', 'signal', '--workflow-id', id, '--name', 'reject', '--input', '{"reason":"no"}');
      }
    });
    await signalled;
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/rejected/);
  });

  it('a blocked task goes on after dex approve and exits 0', async () => {
    const envVars = dexEnv();
    const cassette = cassetteFile([completionTurn('*', { status: 'blocked', reason: 'OK to edit src/math.js?' }), ...fixSumTurns('*')]);
    let approved: Promise<DexRun> | undefined;
    const run = await dex(['task', 'Fix sum', '--repo', sampleRepo(), '--llm', `replay:${cassette}`], envVars, (stderr) => {
      const id = /started (\S+)/.exec(stderr)?.[1];
      if (id && !approved && stderr.includes('waiting at gate "blocked"')) approved = dex(['approve', id, '--note', 'yes'], envVars);
    });
    expect((await approved)?.code).toBe(0);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/completed/);
  });

  it('dex run lands a roadmap, prints the task table and exits 0; dex status shows the tasks', async () => {
    const envVars = dexEnv();
    const repo = roadmapRepo('- [ ] A1: Add notes\n- [ ] A2: More notes (depends: A1)\n', 'verify: ["node --test"]\n');
    const cassette = cassetteFile([
      toolTurn('A1', ['write_file', { path: 'NOTES.md', content: 'one\n' }]),
      completionTurn('A1', { status: 'complete', summary: 'notes' }),
      toolTurn('A2', ['write_file', { path: 'MORE.md', content: 'two\n' }]),
      completionTurn('A2', { status: 'complete', summary: 'more notes' }),
    ]);
    const run = await dex(['run', join(repo, 'ROADMAP.md'), '--llm', `replay:${cassette}`], envVars);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^roadmap-math-[0-9a-f]{8}: completed/);
    expect(run.stdout).toMatch(/A1 +completed +[0-9a-f]{10}/);
    expect(run.stdout).toMatch(/A2 +completed +[0-9a-f]{10}/);
    expect(run.stderr).toMatch(/\[roadmap\] A1 landed on main/);
    expect(run.stderr).toMatch(/\[roadmap\] A2 started/);
    expect(checkoutFile(repo, 'ROADMAP.md')).toBe('- [x] A1: Add notes\n- [x] A2: More notes (depends: A1)\n');

    const id = run.stdout.split(':')[0];
    const status = await dex(['status', id], envVars);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/A2 +completed/);
  });

  it('dex run --max-tasks 2 starts no third task, ends completed naming it, and a later dex run takes it up', async () => {
    const envVars = dexEnv();
    const roadmap = '- [ ] M1: First note\n- [ ] M2: Second note\n- [ ] M3: Third note\n';
    const repo = roadmapRepo(roadmap, 'verify: ["node --test"]\nverifyBaseline: false\nmaxParallel: 3\n');
    const cassette = cassetteFile(['M1', 'M2', 'M3'].flatMap((id) => [
      toolTurn(id, ['write_file', { path: `notes/${id}.md`, content: `${id}\n` }]),
      completionTurn(id, { status: 'complete', summary: `note ${id}` }),
    ]));
    const file = join(repo, 'ROADMAP.md');
    const first = await dex(['run', file, '--llm', `replay:${cassette}`, '--max-tasks', '2'], envVars);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^roadmap-math-[0-9a-f]{8}: completed/);
    expect(first.stdout).toMatch(/M1 +completed +[0-9a-f]{10}/);
    expect(first.stdout).toMatch(/M2 +completed +[0-9a-f]{10}/);
    expect(first.stdout).toMatch(/M3 +pending/);
    expect(first.stdout).toContain('not started: M3 (--max-tasks; a later `dex run` of the roadmap takes them up)');
    // Three may run at once, but only two were ever started.
    expect(first.stderr).not.toMatch(/M3 started/);
    expect(checkoutFile(repo, 'ROADMAP.md')).toBe('- [x] M1: First note\n- [x] M2: Second note\n- [ ] M3: Third note\n');
    const id = first.stdout.split(':')[0];
    testEnv.recordHistory(id, 'roadmap-workflow-max-tasks.json');
    const status = await dex(['status', id, '--json'], envVars);
    expect(JSON.parse(status.stdout)).toMatchObject({ state: 'completed', result: { notStarted: ['M3'] } });
    expect((await dex(['status', id], envVars)).stdout).toContain('not started: M3');

    const later = await dex(['run', file, '--llm', `replay:${cassette}`, '--json'], envVars);
    expect(later.code, later.stderr).toBe(0);
    const doc = JSON.parse(later.stdout);
    expect(doc.workflowId).not.toBe(id);
    expect(doc.result.notStarted).toBeUndefined();
    expect(doc.result.tasks.map((t: { id: string; state: string; commit?: string }) => [t.id, t.state, !!t.commit])).toEqual([
      ['M1', 'completed', false],
      ['M2', 'completed', false],
      ['M3', 'completed', true],
    ]);
    expect(checkoutFile(repo, 'ROADMAP.md')).not.toContain('- [ ]');
  });
});

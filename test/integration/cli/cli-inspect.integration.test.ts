import type { SearchAttributePair } from '@temporalio/common';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEX_COST_USD, DEX_KIND, DEX_PHASE, DEX_REPO, DEX_STATE, DEX_WAITING_FOR } from '../../../core/run/search-attributes';
import { completionTurn, fixSumTurns, toJsonl, toolTurn } from '../../support/model/cassette-builder';
import { runDex, type DexRun } from '../../support/env/dex-cli';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { sampleRepo } from '../../support/env/dev-server-env';
import { roadmapRepo } from '../../support/plans/roadmap-fixture';

// No worker here: each dex command that runs work starts its own, on queues of its own, with
// its own DEX_HOME; `dex log` reads that DEX_HOME's store, as it would on the worker's host.
const testEnv = useDexEnvironment({ server: 'dev' });

/** The environment of dex commands against this file's server, on queues no other test polls. */
const dexEnv = (): NodeJS.ProcessEnv => testEnv.cliEnv();

function cassetteFile(lines: Parameters<typeof toJsonl>[0]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dex-cassette-')), 'run.cassette.jsonl');
  writeFileSync(file, toJsonl(lines));
  return file;
}

/** The run id a `dex task` or `dex run` printed first on stdout. */
const idOf = (run: DexRun): string => run.stdout.split(':')[0];

/** Waits until the server's visibility store lists `count` runs for `query` (it lags behind a start a little). */
async function listed(query: string, count: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await testEnv.client.workflow.count(query)).count < count) {
    if (Date.now() > deadline) throw new Error(`visibility never listed ${count} runs for ${query}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('dex list on a real dev server', () => {
  it("filters by dex's state, kind and repository, shows title, cost and gate, and puts the runs waiting for you first", async () => {
    const repo = `list-${Date.now()}`;
    // Runs on a queue nobody polls keep the search attributes they started with: the rows are known.
    const start = (type: string, id: string, attrs: SearchAttributePair[], title: string) =>
      testEnv.client.workflow.start(type, { workflowId: id, taskQueue: 'dex-inspect-nobody', args: [{}], typedSearchAttributes: attrs, memo: { title, repo } });
    const handles = await Promise.all([
      start('taskWorkflow', `task-${repo}-a-1`, [{ key: DEX_KIND, value: 'task' }, { key: DEX_STATE, value: 'waiting' }, { key: DEX_REPO, value: repo }, { key: DEX_WAITING_FOR, value: 'blocked' }, { key: DEX_COST_USD, value: 0.0123 }], 'Fix A'),
      start('taskWorkflow', `task-${repo}-b-1`, [{ key: DEX_KIND, value: 'task' }, { key: DEX_STATE, value: 'budget_exceeded' }, { key: DEX_REPO, value: repo }, { key: DEX_WAITING_FOR, value: 'budget' }], 'Fix B'),
      start('roadmapWorkflow', `roadmap-${repo}-1`, [{ key: DEX_KIND, value: 'roadmap' }, { key: DEX_STATE, value: 'running' }, { key: DEX_REPO, value: repo }, { key: DEX_PHASE, value: 'T1' }], 'ROADMAP.md'),
      start('taskWorkflow', `task-${repo}-other-1`, [{ key: DEX_STATE, value: 'waiting' }, { key: DEX_REPO, value: `${repo}-other` }], 'Elsewhere'),
    ]);
    try {
      await listed(`DexRepo = "${repo}"`, 3);
      const env = dexEnv();
      const ids = async (...filters: string[]) => {
        const run = await runDex(['list', ...filters, '--json'], { env });
        expect(run.code, run.stderr).toBe(0);
        return (JSON.parse(run.stdout) as { id: string }[]).map((r) => r.id).sort();
      };
      expect(await ids('--repo', repo)).toEqual([`roadmap-${repo}-1`, `task-${repo}-a-1`, `task-${repo}-b-1`]);
      expect(await ids('--repo', `/somewhere/${repo}`, '--state', 'waiting')).toEqual([`task-${repo}-a-1`]);
      expect(await ids('--repo', repo, '--kind', 'roadmap')).toEqual([`roadmap-${repo}-1`]);
      expect(await ids('--repo', repo, '--limit', '1')).toHaveLength(1);

      const rows = JSON.parse((await runDex(['list', '--repo', repo, '--state', 'waiting', '--json'], { env })).stdout);
      expect(rows).toEqual([
        expect.objectContaining({ id: `task-${repo}-a-1`, kind: 'task', state: 'waiting', title: 'Fix A', repo, waitingFor: 'blocked', costUsd: 0.0123, answer: expect.stringContaining(`dex approve task-${repo}-a-1`) }),
      ]);

      const text = await runDex(['list', '--repo', repo], { env });
      expect(text.code, text.stderr).toBe(0);
      const [head, ...rest] = text.stdout.split('\n');
      expect(head).toBe('waiting for you:');
      expect(rest.slice(0, 2).sort()).toEqual([
        `  task-${repo}-a-1 at gate blocked: dex approve task-${repo}-a-1  (or: dex reject task-${repo}-a-1 --reason TEXT)`,
        `  task-${repo}-b-1 at gate budget (over budget): dex approve task-${repo}-b-1 --budget-usd N`,
      ]);
      expect(text.stdout).toMatch(new RegExp(`running +roadmap +roadmap-${repo}-1 +ROADMAP\\.md · on ${repo} · in T1`));
      expect(text.stdout).toMatch(new RegExp(`waiting +task +\\$0\\.0123 +task-${repo}-a-1 +Fix A · on ${repo} · at gate blocked`));

      const bad = await runDex(['list', '--state', 'asleep'], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/unknown --state "asleep"/);
    } finally {
      await Promise.all(handles.map((h) => h.terminate('test over')));
    }
  });
});

describe('what a run is and what it did', () => {
  it('a run the CLI starts carries its title and repository in its memo and a summary in words', async () => {
    const run = await runDex(['task', 'Fix sum', '--repo', sampleRepo(), '--llm', `replay:${cassetteFile(fixSumTurns('*'))}`, '--detach', '--json'], { env: dexEnv() });
    expect(run.code, run.stderr).toBe(0);
    const handle = testEnv.client.workflow.getHandle(JSON.parse(run.stdout).workflowId);
    try {
      const described = await handle.describe();
      expect(described.memo).toEqual({ title: 'Fix sum', repo: 'math' });
      expect(await described.staticSummary()).toBe('Task "Fix sum" on math (implement)');
    } finally {
      await handle.terminate('test over');
    }
  });

  it('dex log --follow shows the steps while the task runs and ends with it; dex log and dex diff show them after', async () => {
    const env = dexEnv();
    let following: Promise<DexRun> | undefined;
    const run = await runDex(['task', 'Fix sum', '--repo', sampleRepo(), '--llm', `replay:${cassetteFile(fixSumTurns('*'))}`], {
      env,
      onStderr: (stderr) => {
        const id = /started (\S+)/.exec(stderr)?.[1];
        if (id && !following) following = runDex(['log', id, '--follow'], { env, timeoutMs: 60_000 });
      },
    });
    expect(run.code, run.stderr).toBe(0);
    const id = idOf(run);
    const followed = await following!;
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.stdout).toContain(`── ${id}/implement/1`);
    expect(followed.stdout).toMatch(/read_file \{"path":"src\/math\.js"\} → \/\*\* Adds two numbers/);
    expect(followed.stdout).toMatch(/edit_file \{"path":"src\/math\.js","old_string":"return a - b;","new_string":"return a \+ b;"\} → ok/);
    expect(followed.stdout).toMatch(/verify passed: node --test/);

    const log = await runDex(['log', id], { env });
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toBe(followed.stdout);
    const doc = JSON.parse((await runDex(['log', id, '--json'], { env })).stdout);
    const steps = doc.runs[0].transcripts[0].steps as { kind: string; name?: string; passed?: boolean }[];
    expect(steps.filter((s) => s.kind === 'tool').map((s) => s.name)).toEqual(['read_file', 'edit_file']);
    expect(steps.at(-1)).toMatchObject({ kind: 'verify', passed: true });

    const diff = await runDex(['diff', id], { env });
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toMatch(new RegExp(`^# ${id}: dex/${id} against [0-9a-f]{10} in .*math`));
    expect(diff.stdout).toMatch(/^-  return a - b;\n\+  return a \+ b;$/m);
    expect(diff.stdout).not.toContain('uncommitted');

    for (const command of ['log', 'diff']) {
      const unknown = await runDex([command, 'task-math-no-such-run-1'], { env });
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/no run with id task-math-no-such-run-1/);
    }
  });

  it('dex status of a task whose verify failed shows the error, the tail of the verify output and the kept worktree; diff and log show the rest', async () => {
    const env = dexEnv();
    const repo = sampleRepo();
    writeFileSync(join(repo, 'dex.config.yaml'), 'maxIterations: 2\nverify: ["node --test"]\n');
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'add', 'dex.config.yaml'], { cwd: repo });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'config'], { cwd: repo });
    const cassette = cassetteFile([
      toolTurn('*', ['edit_file', { path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a * b;' }]),
      completionTurn('*', { status: 'complete', summary: 'fixed, I think' }),
    ]);
    const run = await runDex(['task', 'Fix sum', '--repo', repo, '--llm', `replay:${cassette}`], { env });
    expect(run.code, run.stderr).toBe(1);
    const id = idOf(run);
    expect(run.stdout).toMatch(/verify output \(tail\):\n(  .*\n)*  # fail 1\n/);

    const status = await runDex(['status', id, '--json'], { env });
    expect(status.code, status.stderr).toBe(0);
    const doc = JSON.parse(status.stdout);
    expect(doc).toMatchObject({ id, state: 'failed', error: expect.stringMatching(/implement/) });
    expect(doc.result.verifyTail).toMatch(/6 !== 5[\s\S]*# fail 1/);
    expect(existsSync(doc.result.worktreePath)).toBe(true);
    const text = await runDex(['status', id], { env });
    expect(text.stdout).toMatch(/verify output \(tail\):\n(  .*\n)*  # fail 1\n/);
    expect(text.stdout).toContain(`worktree kept at ${doc.result.worktreePath}`);

    const diff = await runDex(['diff', id, '--json'], { env });
    expect(diff.code, diff.stderr).toBe(0);
    const [changes] = JSON.parse(diff.stdout).diffs;
    expect(changes.committed).toBe('');
    expect(changes.worktreePath).toBe(doc.result.worktreePath);
    expect(changes.uncommitted).toMatch(/^-  return a - b;\n\+  return a \* b;$/m);

    expect(text.stdout).toContain('verify failed: not ok 1 - sum adds two numbers');

    const log = await runDex(['log', id], { env });
    expect(log.stdout).toMatch(/verify failed: node --test · not ok 1 - sum adds two numbers — /);
  });

  it('dex status of a waiting run shows what answers it; pause says it stops after the gate; reject --retry says it retries, and dex log keeps the reason', async () => {
    const env = { ...dexEnv(), TEMPORAL_UI_URL: 'http://ui.test' };
    const cassette = cassetteFile([completionTurn('*', { status: 'blocked', reason: 'may I delete the test?' }), ...fixSumTurns('*')]);
    let atGate: (id: string) => void = () => {};
    const waiting = new Promise<string>((resolve) => (atGate = resolve));
    const task = runDex(['task', 'Fix sum', '--repo', sampleRepo(), '--llm', `replay:${cassette}`], {
      env,
      timeoutMs: 120_000,
      onStderr: (stderr) => {
        const id = /started (\S+)/.exec(stderr)?.[1];
        if (id && stderr.includes('waiting at gate "blocked"')) atGate(id);
      },
    });
    const id = await waiting;
    const page = `Web UI: http://ui.test/namespaces/default/workflows/${id}`;
    const status = await runDex(['status', id], { env });
    expect(status.code, status.stderr).toBe(0);
    // Under a second old it reads `running for 929 ms` (client/render/run-status.ts): the bundled CLI asks that soon.
    expect(status.stdout).toMatch(/^Fix sum · running for (\d+s|\d+ ms)$/m);
    expect(status.stdout).toContain(`  dex approve ${id} --note "…"`);
    expect(status.stdout).toContain(`  temporal workflow signal --workflow-id ${id} --name reject --input '{"reason":"why"}'`);
    expect(status.stdout).toContain(page);

    const paused = await runDex(['pause', id], { env });
    expect(paused.stdout).toContain('paused: it still waits at gate "blocked"; once that is answered it stops before its next step');
    expect((await runDex(['status', id], { env })).stdout).toContain('(paused: stops after this gate until resumed)');
    const rejected = await runDex(['reject', id, '--reason', 'keep the test', '--retry'], { env });
    expect(rejected.stdout).toContain('rejected gate "blocked" of task fix-sum: retrying: its phase runs again');
    await expect.poll(async () => JSON.parse((await runDex(['status', id, '--json'], { env })).stdout).state, { timeout: 30_000, interval: 500 }).toBe('paused');
    expect((await runDex(['resume', id], { env })).code).toBe(0);
    const ended = await task;
    expect(ended.code, ended.stderr).toBe(0);

    const log = await runDex(['log', id], { env });
    expect(log.stdout).toContain(`── ${id}: decisions at gates\n  gate "blocked" of task fix-sum rejected: keep the test (its phase runs again)`);
    const after = await runDex(['status', id], { env });
    expect(after.stdout).toMatch(new RegExp(`^${id}: completed\nFix sum · took \\d[\\dhms ]*\n`));
    expect(after.stdout).toContain(page);
  });

  it("dex log and dex diff of a roadmap show its tasks' steps and changes", async () => {
    const env = dexEnv();
    const repo = roadmapRepo('- [ ] A1: Add notes\n', 'verify: ["node --test"]\n');
    const cassette = cassetteFile([toolTurn('A1', ['write_file', { path: 'NOTES.md', content: 'one\n' }]), completionTurn('A1', { status: 'complete', summary: 'notes' })]);
    const run = await runDex(['run', join(repo, 'ROADMAP.md'), '--llm', `replay:${cassette}`], { env });
    expect(run.code, run.stderr).toBe(0);
    const id = idOf(run);

    const log = await runDex(['log', id], { env });
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toMatch(/^── task-math-A1-[0-9a-f]{8}\/implement\/1$/m);
    expect(log.stdout).toMatch(/write_file \{"path":"NOTES\.md","content":"one\\n"\} → ok/);

    const diff = await runDex(['diff', id], { env });
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toMatch(/^# task-math-A1-[0-9a-f]{8}: /m);
    expect(diff.stdout).toMatch(/\+\+\+ b\/NOTES\.md\n@@ -0,0 \+1 @@\n\+one/);
  });
});

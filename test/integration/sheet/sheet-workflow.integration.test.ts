import { readSettings } from '../../../client/settings';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEnd } from '../../../client/run/follow-run';
import { buildSheetInput, planSheetFile } from '../../../client/requests/sheet-file';
import type { CassetteLine } from '../../../core/parsing/cassette';
import { costOf } from '../../../core/run/pricing';
import type { SheetInput, SheetResult, SheetStatus } from '../../../core/sheet/sheet-types';
import { fixSumTurns, TEST_MODEL } from '../../support/model/cassette-builder';
import { useDexEnvironment, waitForGate } from '../../support/env/dex-environment';
import { commitsOnBranch, sampleRepo } from '../../support/env/dev-server-env';

const USAGE = { input_tokens: 120, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
const CASSETTE: CassetteLine[] = [
  ...fixSumTurns('fix'),
  {
    line: 100,
    task: 'name',
    phase: 'statement',
    response: { id: 'msg_sheet_1', type: 'message', role: 'assistant', model: TEST_MODEL, content: [{ type: 'text', text: "  Fund I's custody  " }], stop_reason: 'end_turn', usage: USAGE },
  },
];

const dex = useDexEnvironment({ server: 'dev', cassette: CASSETTE, queue: 'dex-it-sheet' });

/** Writes a sheet into a fresh folder and plans it as `dex sheet` would. */
function planned(lines: string[], opts: { confirm?: boolean } = {}): { dir: string; input: SheetInput } {
  const dir = mkdtempSync(join(tmpdir(), 'dex-sheet-it-'));
  const file = join(dir, 'case.sheet.yaml');
  writeFileSync(file, lines.join('\n') + '\n');
  const { worker } = dex;
  const settings = { ...readSettings({ DEX_HOME: worker.dexHome }), taskQueue: worker.taskQueue, hostQueue: worker.hostQueue };
  const input = buildSheetInput(file, planSheetFile(file), { confirm: opts.confirm, llm: 'anthropic' }, settings, { ANTHROPIC_API_KEY: 'test-key' });
  return { dir, input };
}

function start(id: string, input: SheetInput) {
  return dex.start('sheetWorkflow', id, input);
}

async function ended(handle: Awaited<ReturnType<typeof start>>): Promise<SheetResult> {
  const end = await runEnd<SheetResult>(handle);
  expect(end.result, end.error).toBeDefined();
  return end.result!;
}

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/** A shell statement that notes its start, waits (bounded) until `expected` statements have started, and notes its end. */
function barrier(name: string, expected: number): string {
  return [
    `echo "start ${name} $(date +%s%N)" >> times`,
    'i=0',
    `while [ "$(grep -c '^start' times)" -lt ${expected} ]; do i=$((i+1)); [ $i -gt 400 ] && exit 9; sleep 0.02; done`,
    `echo "end ${name} $(date +%s%N)" >> times`,
    `echo ${name}-value`,
  ].join('; ');
}

describe('sheetWorkflow on a real dev server', () => {
  it('runs the statements of a phase at the same time and substitutes their values into the next phase', async () => {
    const { dir, input } = planned([
      'statements:',
      `  - { id: join, run: shell, command: 'echo "@a+@b" > joined', as: "@j" }`,
      `  - { id: a, run: shell, command: ${JSON.stringify(barrier('a', 2))}, as: "@a" }`,
      `  - { id: b, run: shell, command: ${JSON.stringify(barrier('b', 2))}, as: "@b" }`,
    ]);
    const result = await ended(await start('sheet-overlap-1', input));

    expect(result).toMatchObject({ state: 'completed', phasesCompleted: 2, phasesTotal: 2 });
    const stamp = Object.fromEntries(lines(join(dir, 'times')).map((l) => [l.split(' ').slice(0, 2).join(' '), BigInt(l.split(' ')[2])]));
    // Each started before the other ended: the two statements of phase 0 overlapped in time.
    expect(stamp['start a'] < stamp['end b'] && stamp['start b'] < stamp['end a']).toBe(true);
    expect(result.statements.map((s) => [s.id, s.dag_depth, s.status, s.value])).toEqual([
      ['join', 1, 'success', ''],
      ['a', 0, 'success', 'a-value'],
      ['b', 0, 'success', 'b-value'],
    ]);
    expect(readFileSync(join(dir, 'joined'), 'utf8')).toBe('a-value+b-value\n');
  });

  it('skips what depends on a failed statement, with blocked_by, and runs what does not', async () => {
    const { input } = planned([
      'statements:',
      '  - { id: make, run: shell, command: "echo m-1", as: "@m" }',
      '  - { id: broken, run: shell, command: "echo using @m; echo no disk >&2; exit 3", as: "@x" }',
      '  - { id: fine, run: shell, command: "echo ok @m" }',
      '  - { id: after, run: shell, command: "echo @x" }',
    ]);
    const handle = await start('sheet-blocked-1', input);
    const result = await ended(handle);

    expect(result).toMatchObject({ state: 'failed', phasesCompleted: 1, phasesTotal: 3 });
    expect(result.statements).toMatchObject([
      { index: 0, id: 'make', dag_depth: 0, status: 'success', value: 'm-1' },
      { index: 1, id: 'broken', dag_depth: 1, status: 'failed', error: { code: 'exit_code', message: 'exit code 3: no disk' } },
      { index: 2, id: 'fine', dag_depth: 1, status: 'success', value: "ok m-1" },
      { index: 3, id: 'after', dag_depth: 2, status: 'skipped', error: { code: 'blocked', message: 'blocked: statement "broken" failed', blocked_by: 'broken' } },
    ]);
    expect(Object.keys(result.statements[0]).sort()).toEqual(['dag_depth', 'id', 'index', 'source', 'span', 'status', 'value']);
    // Each result points at its statement in the file, with the statement as written.
    expect(result.statements[1]).toMatchObject({
      source: 'echo using @m; echo no disk >&2; exit 3',
      span: { line: 3, column: 5, endLine: 3, endColumn: 92 },
    });
    expect(result.file).toBe(input.file);
    expect(result.error).toBe('statement "broken" failed: exit code 3: no disk');
    const status = await handle.query<SheetStatus>('status');
    expect(status.kind).toBe('sheet');
    expect(status.tasks).toEqual([
      { id: 'make', state: 'completed' },
      { id: 'broken', state: 'failed' },
      { id: 'fine', state: 'completed' },
      { id: 'after', state: 'cancelled' },
    ]);
  });

  it('under transaction: true, undoes the completed statements in reverse completion order and ends rolled_back', async () => {
    const { dir, input } = planned([
      'transaction: true',
      'maxParallel: 1',
      'statements:',
      '  - { id: cbu, run: shell, command: "echo do cbu >> log; echo cbu-1", as: "@cbu", undo: { run: shell, command: "echo undo cbu @cbu >> log" } }',
      '  - { id: cp, run: shell, command: "echo do cp >> log; echo cp-1", as: "@cp", undo: { run: shell, command: "echo undo cp @cp >> log" } }',
      '  - { id: role, run: shell, command: "echo do role @cbu @cp >> log", undo: { run: shell, command: "echo undo role >> log" } }',
      '  - { id: isda, run: shell, command: "echo isda for @cbu fails >&2; exit 1", as: "@isda", undo: { run: shell, command: "echo undo isda >> log" } }',
      '  - { id: csa, run: shell, command: "echo do csa @isda >> log", undo: { run: shell, command: "echo undo csa >> log" } }',
    ]);
    const end = await runEnd<SheetResult>(await start('sheet-transaction-1', input));
    dex.recordHistory('sheet-transaction-1', 'sheet-workflow-transaction.json');

    expect(end.state).toBe('rolled_back');
    expect(lines(join(dir, 'log'))).toEqual([
      'do cbu',
      'do cp',
      'do role cbu-1 cp-1',
      'undo role',
      'undo cp cp-1',
      'undo cbu cbu-1',
    ]);
    const r = end.result!;
    expect(r.statements.map((s) => [s.id, s.status, s.undo ?? null, s.error?.code ?? null, s.error?.blocked_by ?? null])).toEqual([
      ['cbu', 'success', 'done', null, null],
      ['cp', 'success', 'done', null, null],
      ['role', 'success', 'done', null, null],
      ['isda', 'failed', null, 'exit_code', null],
      ['csa', 'skipped', null, 'blocked', 'isda'],
    ]);
    expect(end.error).toBe('statement "isda" failed: exit code 1: isda for cbu-1 fails; rolled back');
  });

  it('with --confirm waits at the plan gate; reject ends the sheet rejected with nothing run', async () => {
    const { dir, input } = planned(['statements:', '  - { id: touch, run: shell, command: "touch ran" }'], { confirm: true });
    const handle = await start('sheet-reject-1', input);
    await waitForGate(handle, 'plan');
    expect((await handle.query<SheetStatus>('status')).state).toBe('waiting');
    await handle.signal('reject', { reason: 'not today' });

    const end = await runEnd<SheetResult>(handle);
    expect(end.state).toBe('rejected');
    expect(end.result!.statements).toEqual([
      {
        index: 0,
        id: 'touch',
        dag_depth: 0,
        status: 'skipped',
        error: { code: 'rejected', message: 'the plan was rejected: not today' },
        source: 'touch ran',
        span: { line: 2, column: 5, endLine: 2, endColumn: 51 },
      },
    ]);
    expect(existsSync(join(dir, 'ran'))).toBe(false);
    const history = await handle.fetchHistory();
    expect(history.events!.some((e) => e.activityTaskScheduledEventAttributes)).toBe(false);
  });

  it('with --confirm and approve, runs the sheet after the gate', async () => {
    const { dir, input } = planned(['statements:', '  - { id: touch, run: shell, command: "touch ran" }'], { confirm: true });
    const handle = await start('sheet-approve-1', input);
    await waitForGate(handle, 'plan');
    expect(existsSync(join(dir, 'ran'))).toBe(false);
    await handle.signal('approve', { note: 'go' });
    expect((await ended(handle)).state).toBe('completed');
    expect(existsSync(join(dir, 'ran'))).toBe(true);
  });

  it('answers an llm statement from the fake Anthropic server and passes its reply on, quoted, to a shell statement', async () => {
    const { dir, input } = planned([
      'statements:',
      '  - { id: fund, run: shell, command: "echo Fund I", as: "@fund" }',
      '  - { id: name, run: llm, prompt: "Name the custody account of @fund.", as: "@account" }',
      '  - { id: save, run: shell, command: "printf %s @account > account.txt" }',
    ]);
    const result = await ended(await start('sheet-llm-1', input));

    expect(result.state).toBe('completed');
    expect(result.statements[1]).toMatchObject({ status: 'success', value: "Fund I's custody" });
    expect(readFileSync(join(dir, 'account.txt'), 'utf8')).toBe("Fund I's custody");
    const tokens = { input: 120, output: 9, cacheRead: 0, cacheWrite: 0 };
    expect(result.tokens).toEqual(tokens);
    expect(result.costUsd).toBeCloseTo(costOf(TEST_MODEL, tokens), 10);
    const request = dex.requestsFor('name')[0];
    expect(request.headers['x-dex-phase']).toBe('statement');
    expect(request.body!.tools).toBeUndefined();
    expect(request.body!.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Name the custody account of Fund I.' }] }]);
  });

  it('runs a task statement as a child taskWorkflow whose commit sha is the value', async () => {
    const repo = sampleRepo();
    const { input } = planned([
      'statements:',
      '  - { id: what, run: shell, command: "echo sum", as: "@fn" }',
      `  - { id: fix, run: task, title: "Fix @fn in src/math.js", repo: ${JSON.stringify(repo)}, as: "@sha" }`,
      '  - { id: show, run: shell, command: "echo committed @sha" }',
    ]);
    const task = input.statements[1].action;
    expect(task.run === 'task' && task.task).toMatchObject({ taskId: 'fix', repoPath: repo, hostQueue: dex.worker.hostQueue });
    const result = await ended(await start('sheet-task-1', input));

    expect(result.state, result.error).toBe('completed');
    const sha = result.statements[1].value!;
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(commitsOnBranch(repo, 'dex/sheet-task-1-fix')[0]).toContain(sha);
    expect(result.statements[2].value).toBe(`committed ${sha}`);
    expect(dex.requestsFor('fix')).toHaveLength(3);
    expect(JSON.stringify(dex.requestsFor('fix')[0].body!.messages)).toContain('Fix sum in src/math.js');
    expect(result.tokens.output).toBeGreaterThan(0);
  });
});

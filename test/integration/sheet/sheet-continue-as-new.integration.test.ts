import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEnd } from '../../../client/run/follow-run';
import { buildSheetInput, planSheetFile } from '../../../client/requests/sheet-file';
import { readSettings } from '../../../client/settings';
import type { SheetInput, SheetResult, SheetStatus } from '../../../core/sheet/sheet-types';
import { activitiesOf, chainOf, type Event } from '../../support/env/chain-history';
import { useDexEnvironment } from '../../support/env/dex-environment';

// docs/sheets.md#continue-as-new
const dex = useDexEnvironment({ server: 'dev', queue: 'dex-it-sheet-chain' });

/** Writes a sheet of `statements` (YAML flow mappings) into a fresh folder and plans it as `dex sheet` would. */
function planned(head: string[], statements: string[]): { dir: string; input: SheetInput } {
  const dir = mkdtempSync(join(tmpdir(), 'dex-sheet-chain-'));
  const file = join(dir, 'chain.sheet.yaml');
  writeFileSync(file, [...head, 'statements:', ...statements.map((s) => `  - ${s}`)].join('\n') + '\n');
  const { worker } = dex;
  const settings = { ...readSettings({ DEX_HOME: worker.dexHome }), taskQueue: worker.taskQueue, hostQueue: worker.hostQueue };
  return { dir, input: buildSheetInput(file, planSheetFile(file), {}, settings, {}) };
}

/** Runs the sheet to its end under `id` with `historyLimit`; its result and every run of its chain. */
async function runChain(id: string, input: SheetInput, historyLimit: number): Promise<{ end: Awaited<ReturnType<typeof runEnd<SheetResult>>>; runs: Event[][] }> {
  const handle = await dex.start('sheetWorkflow', id, { ...input, historyLimit });
  const end = await runEnd<SheetResult>(handle);
  const runs = await chainOf(dex.client, id, handle.firstExecutionRunId);
  console.log(`${id}: ${runs.length} runs, history lengths ${runs.map((r) => r.length).join(', ')}; commands ${runs.map((r) => commandKeys(r).length).join(', ')}`);
  return { end, runs };
}

/** The step keys (`<id>/<statement>/do|undo`) of the commands a history ran, in order. */
const commandKeys = (events: Event[]): string[] =>
  events.flatMap((e) => {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== 'runSheetCommand') return [];
    return [(JSON.parse(Buffer.from(scheduled.input!.payloads![0].data!).toString()) as { key: string }).key.split('/').slice(1).join('/')];
  });

const logOf = (dir: string): string[] => (existsSync(join(dir, 'log')) ? readFileSync(join(dir, 'log'), 'utf8').split('\n').filter(Boolean) : []);
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

describe('a sheet of 200 statements with a history limit of 300 events', () => {
  it('continues as new several times, each history under the limit, each statement run once, and ends with the whole sheet', async () => {
    const { dir, input } = planned(['maxParallel: 4'], [
      ...range(100).map((i) => `{ id: a${i}, run: shell, command: "echo a${i} >> log; echo val-${i}", as: "@a${i}" }`),
      ...range(100).map((i) => `{ id: b${i}, run: shell, command: "echo b${i} @a${i} >> log; echo got-@a${i}", as: "@b${i}" }`),
    ]);
    const limit = 300;
    const { end, runs } = await runChain('sheet-chain-1', input, limit);

    expect(end.state, end.error).toBe('completed');
    expect(runs.length).toBeGreaterThanOrEqual(3);
    for (const events of runs) expect(events.length).toBeLessThan(limit);
    // Each statement ran in exactly one run of the chain, once; a `b` read the value its `a` produced, often in an earlier run.
    const keys = runs.flatMap(commandKeys);
    expect(keys).toHaveLength(200);
    expect(new Set(keys).size).toBe(200);
    expect(logOf(dir).sort()).toEqual([...range(100).map((i) => `a${i}`), ...range(100).map((i) => `b${i} val-${i}`)].sort());
    expect(runs.slice(1).every((events) => activitiesOf(events)[0] === 'sheetChainState')).toBe(true);

    // The result lists every statement, as for a sheet that never continued.
    const result = end.result!;
    expect(result).toMatchObject({ state: 'completed', phasesCompleted: 2, phasesTotal: 2 });
    expect(result.statements.map((s) => [s.id, s.status, s.value])).toEqual([
      ...range(100).map((i) => [`a${i}`, 'success', `val-${i}`]),
      ...range(100).map((i) => [`b${i}`, 'success', `got-val-${i}`]),
    ]);

    // The status query of the last run describes the whole sheet: every statement, and the earlier runs' as counts.
    const status = await dex.client.workflow.getHandle('sheet-chain-1').query<SheetStatus>('status');
    expect(status).toMatchObject({ kind: 'sheet', state: 'completed' });
    expect(status.statements.filter((s) => s.status === 'success')).toHaveLength(200);
    expect(status.tasks?.filter((t) => t.state === 'completed')).toHaveLength(200);
    expect(status.earlier).toEqual({ done: 200 - commandKeys(runs.at(-1)!).length, skipped: 0, failed: 0, runs: runs.length - 1 });
  }, 600_000);
});

describe('a transaction that fails after continuing as new', () => {
  it('undoes every completed statement, those of earlier runs too, newest first, continuing as new while it does', async () => {
    // t30's undo fails in a later run than the last: the sheet's error must still name it.
    const undo = (i: number) => `echo undo t${i} @t${i} >> log${i === 30 ? '; echo gone >&2; exit 7' : ''}`;
    const { dir, input } = planned(['transaction: true', 'maxParallel: 1'], [
      ...range(60).map((i) => `{ id: t${i}, run: shell, command: "echo do t${i} >> log; echo t${i}-v", as: "@t${i}", undo: { run: shell, command: "${undo(i)}" } }`),
      '{ id: bad, run: shell, command: "echo no room for @t59 >&2; exit 1", undo: { run: shell, command: "echo undo bad >> log" } }',
    ]);
    const limit = 300;
    const { end, runs } = await runChain('sheet-chain-tx-1', input, limit);

    for (const events of runs) expect(events.length).toBeLessThan(limit);
    const keysByRun = runs.map(commandKeys);
    const runOf = (key: string) => keysByRun.findIndex((keys) => keys.includes(key));
    // `bad` failed in a later run than the first statements, t30's undo in a later run still, and t0's in the last.
    expect(runOf('bad/do')).toBeGreaterThan(runOf('t0/do'));
    expect(runOf('t30/undo')).toBeGreaterThan(runOf('bad/do'));
    expect(runOf('t0/undo')).toBe(runs.length - 1);
    expect(runOf('t0/undo')).toBeGreaterThan(runOf('t30/undo'));
    expect(keysByRun.flat()).toHaveLength(121);
    expect(logOf(dir)).toEqual([...range(60).map((i) => `do t${i}`), ...range(60).reverse().map((i) => `undo t${i} t${i}-v`)]);
    expect(end.state).toBe('failed');
    expect(end.error).toBe(
      'statement "bad" failed: exit code 1: no room for t59-v; the rollback is incomplete, the effects of these statements remain: "t30" (its undo failed: exit code 7: gone)',
    );
    expect(end.result!.statements.map((s) => [s.id, s.status, s.undo ?? null])).toEqual([
      ...range(60).map((i) => [`t${i}`, 'success', i === 30 ? 'failed' : 'done']),
      ['bad', 'failed', null],
    ]);
  }, 600_000);

  it('with a limit no run stays under: each run starts one statement or undo, and the last undoes the first', async () => {
    const { dir, input } = planned(['transaction: true'], [
      ...range(3).map((i) => `{ id: t${i}, run: shell, command: "echo do t${i} >> log; echo t${i}-v", as: "@t${i}", undo: { run: shell, command: "echo undo t${i} @t${i} >> log" } }`),
      '{ id: bad, run: shell, command: "echo @t0 @t1 @t2 >&2; exit 2", undo: { run: shell, command: "echo undo bad >> log" } }',
    ]);
    const { end, runs } = await runChain('sheet-chain-one-1', input, 1);
    dex.recordHistory('sheet-chain-one-1', 'sheet-workflow-continue-as-new.json');

    expect(end.state, end.error).toBe('rolled_back');
    expect(runs.map(commandKeys)).toEqual([['t0/do'], ['t1/do'], ['t2/do'], ['bad/do'], ['t2/undo'], ['t1/undo'], ['t0/undo']]);
    expect(activitiesOf(runs.at(-1)!)).toEqual(['sheetChainState', 'runSheetCommand']);
    expect(logOf(dir)).toEqual(['do t0', 'do t1', 'do t2', 'undo t2 t2-v', 'undo t1 t1-v', 'undo t0 t0-v']);
    expect(end.result!.statements.map((s) => s.undo ?? null)).toEqual(['done', 'done', 'done', null]);
  }, 300_000);
});

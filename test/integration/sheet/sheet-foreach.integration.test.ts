import { readSettings } from '../../../client/settings';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEnd } from '../../../client/run/follow-run';
import { buildSheetInput, planSheetFile } from '../../../client/requests/sheet-file';
import type { SheetInput, SheetResult, SheetStatus } from '../../../core/sheet/sheet-types';
import { useDexEnvironment } from '../../support/env/dex-environment';

// for_each copies and transactions on a real dev server (docs/sheets.md#template-over-a-set-for_each,
// docs/sheets.md#transactions): what ran, in which phase, and what a failed undo leaves.

const dex = useDexEnvironment({ server: 'dev', queue: 'dex-it-sheet-foreach' });

/** Writes a sheet into a fresh folder and plans it as `dex sheet` would. */
function planned(lines: string[]): { dir: string; input: SheetInput } {
  const dir = mkdtempSync(join(tmpdir(), 'dex-sheet-foreach-'));
  const file = join(dir, 'case.sheet.yaml');
  writeFileSync(file, lines.join('\n') + '\n');
  const { worker } = dex;
  const settings = { ...readSettings({ DEX_HOME: worker.dexHome }), taskQueue: worker.taskQueue, hostQueue: worker.hostQueue };
  return { dir, input: buildSheetInput(file, planSheetFile(file), {}, settings, {}) };
}

function log(dir: string): string[] {
  return readFileSync(join(dir, 'log'), 'utf8').split('\n').filter(Boolean);
}

describe('a for_each sheet on a real dev server', () => {
  it('runs every statement once per target, in the phases of the copies, each copy with its own symbols', async () => {
    const { dir, input } = planned([
      'for_each: [fund-a, "fund b", "it\'s $(x)"]',
      'statements:',
      '  - id: report',
      '    run: shell',
      '    command: printf "%s / %s" @isda @cbu > report-@target.txt',
      '  - { id: cbu, run: shell, command: "printf cbu-%s @target", as: "@cbu" }',
      '  - { id: isda, run: shell, command: "echo isda-for-@cbu", as: "@isda" }',
    ]);
    expect(input.phases.map((phase) => phase.map((i) => input.statements[i].id))).toEqual([
      ['cbu.fund-a', 'cbu.fund-b', 'cbu.it-s-x'],
      ['isda.fund-a', 'isda.fund-b', 'isda.it-s-x'],
      ['report.fund-a', 'report.fund-b', 'report.it-s-x'],
    ]);
    const result = await runEnd<SheetResult>(await dex.start('sheetWorkflow', 'sheet-foreach-1', input));

    expect(result.state, result.error).toBe('completed');
    expect(result.result).toMatchObject({ phasesCompleted: 3, phasesTotal: 3 });
    expect(result.result!.statements.map((s) => [s.id, s.target, s.dag_depth, s.status, s.value, s.span?.line])).toEqual([
      ['report.fund-a', 'fund-a', 2, 'success', '', 3],
      ['report.fund-b', 'fund b', 2, 'success', '', 3],
      ['report.it-s-x', "it's $(x)", 2, 'success', '', 3],
      ['cbu.fund-a', 'fund-a', 0, 'success', 'cbu-fund-a', 6],
      ['cbu.fund-b', 'fund b', 0, 'success', 'cbu-fund b', 6],
      ['cbu.it-s-x', "it's $(x)", 0, 'success', "cbu-it's $(x)", 6],
      ['isda.fund-a', 'fund-a', 1, 'success', 'isda-for-cbu-fund-a', 7],
      ['isda.fund-b', 'fund b', 1, 'success', 'isda-for-cbu-fund b', 7],
      ['isda.it-s-x', "it's $(x)", 1, 'success', "isda-for-cbu-it's $(x)", 7],
    ]);
    expect(readFileSync(join(dir, 'report-fund-a.txt'), 'utf8')).toBe('isda-for-cbu-fund-a / cbu-fund-a');
    expect(readFileSync(join(dir, 'report-fund b.txt'), 'utf8')).toBe('isda-for-cbu-fund b / cbu-fund b');
    expect(readFileSync(join(dir, "report-it's $(x).txt"), 'utf8')).toBe("isda-for-cbu-it's $(x) / cbu-it's $(x)");
  });

  it('in a transaction, undoes what completed, and ends failed naming the statement whose undo failed: its effect remains', async () => {
    const { dir, input } = planned([
      'transaction: true',
      'maxParallel: 1',
      'for_each: [a, b, c]',
      'statements:',
      '  - id: make',
      '    run: shell',
      '    command: echo make @target >> log; echo m-@target',
      '    as: "@m"',
      '    undo: { run: shell, command: "echo undo @m >> log; if [ @target = b ]; then echo @m is locked >&2; exit 7; fi" }',
      '  - id: use',
      '    run: shell',
      '    command: echo use @m >> log; if [ @target = c ]; then echo no account for @target >&2; exit 5; fi',
      '    undo: { run: shell, command: "echo undo use @m >> log" }',
    ]);
    const handle = await dex.start('sheetWorkflow', 'sheet-foreach-undo-1', input);
    const end = await runEnd<SheetResult>(handle);

    expect(end.state).toBe('failed');
    expect(end.error).toBe(
      'statement "use.c" failed: exit code 5: no account for c; the rollback is incomplete, the effects of these statements remain: "make.b" (its undo failed: exit code 7: m-b is locked)',
    );
    expect(log(dir)).toEqual(['make a', 'make b', 'make c', 'use m-a', 'use m-b', 'use m-c', 'undo use m-b', 'undo use m-a', 'undo m-c', 'undo m-b', 'undo m-a']);
    const r = end.result!;
    expect(r.statements.map((s) => [s.id, s.status, s.undo ?? null])).toEqual([
      ['make.a', 'success', 'done'],
      ['make.b', 'success', 'failed'],
      ['make.c', 'success', 'done'],
      ['use.a', 'success', 'done'],
      ['use.b', 'success', 'done'],
      ['use.c', 'failed', null],
    ]);
    expect(r.statements[5]).toMatchObject({ span: { line: 10, column: 5, endLine: 13, endColumn: 60 }, source: expect.stringContaining('echo use @m >> log') });
    const status = await handle.query<SheetStatus>('status');
    expect(status.tasks!.find((t) => t.id === 'make.b')).toEqual({ id: 'make.b', state: 'completed' });
    expect(status.tasks!.find((t) => t.id === 'make.a')).toEqual({ id: 'make.a', state: 'rolled_back' });
  });
});

import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planSheetFile } from '../../../client/requests/sheet-file';
import { describePlan, planSheet, type SheetDoc } from '../../../core/parsing/sheet';
import { targetKeys } from '../../../core/sheet/sheet-expand';
import { substituteAction, substituteText, symbolsIn } from '../../../core/sheet/sheet-symbols';

// Template × set (docs/sheets.md#template-over-a-set-for_each): a for_each sheet is copied once per target.

const ONBOARD: SheetDoc = {
  for_each: ['fund-a', 'fund-b', 'fund-c'],
  statements: [
    { id: 'report', run: 'shell', command: 'echo @cbu has @cp > report-@target' },
    { id: 'cbu', run: 'shell', command: 'echo cbu-@target', as: '@cbu' },
    { id: 'cp', run: 'llm', prompt: 'Counterparty of @target for @cbu?', as: '@cp' },
  ],
};

describe('expanding a for_each sheet', () => {
  const plan = planSheet(ONBOARD, 'onboard');

  it('copies every statement once per target, statement by statement, with ids <id>.<key>', () => {
    expect(plan.statements.map((s) => [s.index, s.id, s.target, s.depth])).toEqual([
      [0, 'report.fund-a', 'fund-a', 2],
      [1, 'report.fund-b', 'fund-b', 2],
      [2, 'report.fund-c', 'fund-c', 2],
      [3, 'cbu.fund-a', 'fund-a', 0],
      [4, 'cbu.fund-b', 'fund-b', 0],
      [5, 'cbu.fund-c', 'fund-c', 0],
      [6, 'cp.fund-a', 'fund-a', 1],
      [7, 'cp.fund-b', 'fund-b', 1],
      [8, 'cp.fund-c', 'fund-c', 1],
    ]);
    expect(plan.phases).toEqual([[3, 4, 5], [6, 7, 8], [0, 1, 2]]);
    expect(plan.targets).toEqual(['fund-a', 'fund-b', 'fund-c']);
  });

  it("gives each copy the target's own symbols, so a copy needs only its own target's producers", () => {
    const cp = plan.statements[7];
    expect(cp).toMatchObject({ produces: 'cp__fund_b', consumes: ['cbu__fund_b'], needs: ['cbu.fund-b'] });
    expect(plan.statements[2]).toMatchObject({ consumes: ['cbu__fund_c', 'cp__fund_c'], needs: ['cbu.fund-c', 'cp.fund-c'] });
    expect(cp.doc.prompt).toBe('Counterparty of fund-b for @cbu__fund_b?');
    expect(plan.statements[0].doc.command).toBe("echo @cbu__fund_a has @cp__fund_a > report-'fund-a'");
    // The source stays the template's text, before substitution.
    expect(cp.source).toBe('Counterparty of @target for @cbu?');
    expect(describePlan(plan).split('\n').slice(0, 2)).toEqual([
      'sheet onboard: 9 statements in 3 phases over 3 targets',
      'phase 0: cbu.fund-a (#3 → @cbu__fund_a), cbu.fund-b (#4 → @cbu__fund_b), cbu.fund-c (#5 → @cbu__fund_c)',
    ]);
  });

  it('puts a target into a command as literal text in any quoting, and into a prompt as is, however odd the target', () => {
    const target = `it's "$(touch pwned)" \`x\` @cbu @@ me@x \\`;
    const doc: SheetDoc = {
      for_each: [target],
      statements: [
        { id: 'a', run: 'shell', command: 'printf "%s|%s|%s" @target "<@target>" \'<@target>\'' },
        { id: 'b', run: 'llm', prompt: 'About @target, @@literal' },
      ],
    };
    const [a, b] = planSheet(doc, 'x').statements;
    // Nothing in the target reads as a reference: the copies consume no symbol.
    expect([a.consumes, b.consumes]).toEqual([[], []]);
    const command = (substituteAction({ run: 'shell', command: a.doc.command! }, {}) as { command: string }).command;
    const dir = mkdtempSync(join(tmpdir(), 'dex-sheet-target-'));
    expect(execFileSync('/bin/sh', ['-c', command], { encoding: 'utf8', cwd: dir })).toBe(`${target}|<${target}>|<${target}>`);
    expect(substituteText(b.doc.prompt!, {})).toBe(`About ${target}, @literal`);
    expect(symbolsIn(b.doc.prompt!)).toEqual([]);
  });

  it('makes keys that are unique and safe in ids, symbol names and branch names', () => {
    expect(targetKeys(['fund a', 'fund-a', 'fund_a', 'Fonds/Ä', '', 'lock', 'x'.repeat(50)])).toEqual([
      'fund-a',
      'fund-a_2',
      'fund_a_3',
      'Fonds',
      't',
      'lock_',
      'x'.repeat(40),
    ]);
  });

  it('renames the undo of a copy too, its own symbol included', () => {
    const plan = planSheet(
      { for_each: ['a'], transaction: true, statements: [{ id: 'make', run: 'shell', command: 'mk @target', as: '@m', undo: { run: 'shell', command: 'rm @m @target' } }] },
      'x',
    );
    expect(plan.statements[0].doc.undo).toEqual({ run: 'shell', command: "rm @m__a 'a'" });
    expect(plan.statements[0].consumes).toEqual([]);
  });
});

describe('for_each in a sheet file', () => {
  it('reads the targets from a file next to the sheet, one a line, without blank and # lines', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dex-sheet-foreach-'));
    writeFileSync(join(dir, 'funds.txt'), '# the book\nfund-a\n\n  fund-b  \n#fund-x\n');
    const file = join(dir, 'book.sheet.yaml');
    writeFileSync(file, ['for_each: { file: funds.txt }', 'statements:', '  - { id: touch, run: shell, command: "touch @target" }'].join('\n'));
    const plan = planSheetFile(file);
    expect(plan.targets).toEqual(['fund-a', 'fund-b']);
    expect(plan.statements.map((s) => [s.id, s.span?.line])).toEqual([
      ['touch.fund-a', 3],
      ['touch.fund-b', 3],
    ]);
  });
});

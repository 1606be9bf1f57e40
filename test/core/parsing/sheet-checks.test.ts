import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderSheetResult } from '../../../client/render/render-sheet';
import { buildSheetInput, planSheetFile } from '../../../client/requests/sheet-file';
import { InvalidInput } from '../../../core/run/invalid-input';
import { planSheet, type SheetDoc } from '../../../core/parsing/sheet';
import { errorOf, sheetFile } from '../../support/plans/sheet-fixtures';

// The checks before a sheet runs (docs/sheets.md#tollgate-1-planning-client-side-before-anything-starts):
// a transaction's undos, `@target`, and where in the file each problem and each statement is.


describe('a transaction is checked before anything runs', () => {
  const doc = (statements: SheetDoc['statements']): SheetDoc => ({ transaction: true, statements });

  it('refuses a transaction whose shell and task statements lack an undo, naming all of them', () => {
    const err = errorOf(() =>
      planSheet(
        doc([
          { id: 'cbu', run: 'shell', command: 'echo 1', as: '@cbu', undo: { run: 'shell', command: 'echo undo' } },
          { id: 'csa', run: 'shell', command: 'echo @cbu' },
          { id: 'note', run: 'llm', prompt: 'Say @cbu' },
          { id: 'docs', run: 'task', title: 'Register @cbu' },
        ]),
        'x',
      ),
    );
    expect(err).toBeInstanceOf(InvalidInput);
    expect(err.message).toBe(
      'transaction: true needs an undo on every shell and task statement, so that a failure can be rolled back; without one: "csa", "docs"',
    );
  });

  it('lets an llm statement go without an undo: it has no effect to undo', () => {
    const plan = planSheet(doc([{ id: 'a', run: 'shell', command: 'echo 1', as: '@a', undo: { run: 'shell', command: 'true' } }, { id: 'b', run: 'llm', prompt: '@a?' }]), 'x');
    expect(plan.transaction).toBe(true);
  });

  it('places the refusal at the first statement lacking an undo, by line and column', () => {
    const file = sheetFile([
      'transaction: true',
      'statements:',
      '  - { id: ok, run: shell, command: "echo 1", undo: { run: shell, command: "true" } }',
      '  - id: bare',
      '    run: shell',
      '    command: touch x',
      '  - { id: also, run: shell, command: "touch y" }',
    ]);
    expect(errorOf(() => planSheetFile(file)).message).toBe(
      `${file}:4:5: transaction: true needs an undo on every shell and task statement, so that a failure can be rolled back; without one: "bare", "also"`,
    );
  });

  it('checks the template of a for_each sheet once, naming the statement as written', () => {
    const err = errorOf(() => planSheet({ transaction: true, for_each: ['a', 'b'], statements: [{ id: 'w', run: 'shell', command: 'touch @target' }] }, 'x'));
    expect(err.message).toMatch(/without one: "w"$/);
  });
});

describe('problems name the place of the statement at fault', () => {
  it.each([
    ['an unbound symbol', ['  - { id: a, run: shell, command: "echo 1" }', '  - { id: b, run: shell, command: "echo @ghost" }'], '3:5: unbound symbol @ghost: statement "b" uses it'],
    ['a symbol produced twice', ['  - { id: a, run: shell, command: "x", as: "@v" }', '  - { id: b, run: shell, command: "y", as: "@v" }'], '3:5: @v is produced by both statement "a" and statement "b"'],
    ['a duplicate id', ['  - { id: a, run: shell, command: "x" }', '  - { id: a, run: shell, command: "y" }'], '3:5: two statements have the id "a"'],
    ['a cycle', ['  - { id: a, run: shell, command: "x", as: "@a" }', '  - { id: b, run: shell, command: "@c", as: "@b" }', '  - { id: c, run: shell, command: "@b", as: "@c" }'], '3:5: dependency cycle between statements: "b" -> "c" -> "b"'],
    ['@target without for_each', ['  - { id: a, run: shell, command: "x" }', '  - { id: b, run: llm, prompt: "about @target" }'], '3:5: statement "b" uses @target, but the sheet has no for_each'],
    ['a statement producing @target', ['  - { id: a, run: shell, command: "x", as: "@target" }'], '2:5: statement "a" produces @target, a name reserved for the for_each target'],
  ])('%s', (_what, statements, message) => {
    const file = sheetFile(['statements:', ...statements]);
    const err = errorOf(() => planSheetFile(file));
    expect(err).toBeInstanceOf(InvalidInput);
    expect(err.message.startsWith(`${file}:${message}`), err.message).toBe(true);
  });

  it.each([
    ['an empty set', 'for_each: []', '1:11: for_each names no target: a sheet over an empty set would run nothing'],
    ['a target twice', 'for_each: [a, b, a]', '1:11: for_each names the target "a" twice'],
    ['a missing file of targets', 'for_each: { file: none.txt }', '1:19: for_each file not found: '],
  ])('refuses %s', (_what, forEach, message) => {
    const file = sheetFile([forEach, 'statements:', '  - { id: a, run: shell, command: "echo @target" }']);
    expect(errorOf(() => planSheetFile(file)).message.startsWith(`${file}:${message}`)).toBe(true);
  });

  it('refuses a file of targets naming one twice or none, naming that file', () => {
    const file = sheetFile(['for_each: { file: funds.txt }', 'statements:', '  - { id: a, run: shell, command: "echo @target" }']);
    const funds = join(file, '..', 'funds.txt');
    writeFileSync(funds, 'a\n# b\nb\na\n');
    expect(errorOf(() => planSheetFile(file)).message).toBe(`${funds}: for_each names the target "a" twice`);
    writeFileSync(funds, '# none yet\n\n');
    expect(errorOf(() => planSheetFile(file)).message).toBe(`${funds}: for_each names no target: a sheet over an empty set would run nothing`);
  });
});

describe('statements carry their span and their text as written', () => {
  const file = sheetFile([
    'name: spans',
    'statements:',
    '  - { id: cbu, run: shell, command: "echo cbu-1", as: "@cbu" }',
    '  - id: isda',
    '    run: shell',
    '    command: |',
    '      echo isda for @cbu',
    '      exit 4',
    '',
    '  - id: note',
    '    run: llm',
    '    prompt: Summarize @cbu',
  ]);

  it('plans each statement with its span (1-based, last character inclusive) and source', () => {
    const plan = planSheetFile(file);
    expect(plan.statements.map((s) => [s.id, s.span, s.source])).toEqual([
      ['cbu', { line: 3, column: 5, endLine: 3, endColumn: 62 }, 'echo cbu-1'],
      ['isda', { line: 4, column: 5, endLine: 8, endColumn: 12 }, 'echo isda for @cbu\nexit 4\n'],
      ['note', { line: 10, column: 5, endLine: 12, endColumn: 26 }, 'Summarize @cbu'],
    ]);
  });

  it('hands the spans, the texts and the file to the workflow', () => {
    const dexHome = mkdtempSync(join(tmpdir(), 'dex-home-'));
    const settings = { namespace: 'default', taskQueue: 'q', hostQueue: 'q@host', dexHome, store: { kind: 'sqlite' as const, path: join(dexHome, 'dex.db') } };
    const input = buildSheetInput(file, planSheetFile(file), { llm: 'anthropic' }, settings, { ANTHROPIC_API_KEY: 'k' });
    expect(input.file).toBe(file);
    expect(input.statements[1]).toMatchObject({ id: 'isda', span: { line: 4, column: 5, endLine: 8, endColumn: 12 }, source: 'echo isda for @cbu\nexit 4\n' });
  });

  it('renders each failed statement, and each whose undo failed, as FILE:LINE:COLUMN', () => {
    const lines = renderSheetResult({
      name: 'spans',
      file,
      state: 'failed',
      phasesCompleted: 1,
      phasesTotal: 2,
      tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      costUsd: 0,
      statements: [
        { index: 0, id: 'cbu', dag_depth: 0, status: 'success', value: 'cbu-1', undo: 'failed', source: 'echo cbu-1', span: { line: 3, column: 5, endLine: 3, endColumn: 64 } },
        { index: 1, id: 'isda', dag_depth: 1, status: 'failed', error: { code: 'exit_code', message: 'exit code 4' }, source: 'echo isda for @cbu\nexit 4\n', span: { line: 4, column: 5, endLine: 8, endColumn: 12 } },
      ],
    });
    expect(lines.slice(-2)).toEqual([`${file}:3:5: cbu was not undone: its undo failed: echo cbu-1`, `${file}:4:5: isda failed: echo isda for @cbu exit 4`]);
  });
});

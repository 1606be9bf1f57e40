import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { renderSheetResult } from '../../../client/render/render-sheet';
import { planSheetFile } from '../../../client/requests/sheet-file';
import { InvalidInput } from '../../../core/run/invalid-input';
import { inLanes } from '../../../workflows/run/lanes';
import { describePlan, planSheet, type SheetDoc, type StatementDoc } from '../../../core/parsing/sheet';
import { substituteAction, substituteText, symbolsIn } from '../../../core/sheet/sheet-symbols';
import { errorOf, sheetFile } from '../../support/plans/sheet-fixtures';

/** A reference sheet of six statements in three dependency phases, by their index. */
const NOTE_EXAMPLE: StatementDoc[] = [
  { id: 'cbu', run: 'shell', command: 'echo cbu-1', as: '@cbu' },
  { id: 'cp', run: 'shell', command: 'echo barclays', as: '@cp' },
  { id: 'product', run: 'shell', command: 'echo add-product @cbu custody' },
  { id: 'role', run: 'shell', command: 'echo assign-role @cbu @cp' },
  { id: 'isda', run: 'shell', command: 'echo isda @cbu @cp', as: '@isda' },
  { id: 'csa', run: 'shell', command: 'echo add-csa @isda' },
];
const NOTE_INDEX = new Map(NOTE_EXAMPLE.map((s, i) => [s.id, i]));
const SHUFFLED = [5, 3, 1, 4, 0, 2].map((i) => NOTE_EXAMPLE[i]);


describe('planning a sheet (tollgate 1)', () => {
  it('plans the six reference statements, given shuffled, into phases [0,1] [2,3,4] [5] by original index', () => {
    const plan = planSheet({ statements: SHUFFLED }, 'note');
    const byNoteIndex = plan.phases.map((phase) => phase.map((i) => NOTE_INDEX.get(plan.statements[i].id)!).sort());
    expect(byNoteIndex).toEqual([[0, 1], [2, 3, 4], [5]]);
    // Depths and file indexes per statement; the data-flow order puts producers first.
    expect(plan.statements.map((s) => [s.id, s.index, s.depth])).toEqual([
      ['csa', 0, 2], ['role', 1, 1], ['cp', 2, 0], ['isda', 3, 1], ['cbu', 4, 0], ['product', 5, 1],
    ]);
    expect(plan.order.map((i) => plan.statements[i].id)).toEqual(['cp', 'cbu', 'role', 'isda', 'product', 'csa']);
    expect(plan.statements.find((s) => s.id === 'role')!.needs).toEqual(['cbu', 'cp']);
    expect(describePlan(plan)).toContain('phase 2: csa (#0)');
  });

  it('names the statements of a cycle', () => {
    const doc: SheetDoc = {
      statements: [
        { id: 'a', run: 'shell', command: 'echo @c', as: '@a' },
        { id: 'b', run: 'shell', command: 'echo @a', as: '@b' },
        { id: 'c', run: 'shell', command: 'echo @b', as: '@c' },
        { id: 'free', run: 'shell', command: 'echo 1' },
      ],
    };
    const err = errorOf(() => planSheet(doc, 'x'));
    expect(err).toBeInstanceOf(InvalidInput);
    expect(err.message).toBe('dependency cycle between statements: "a" -> "c" -> "b" -> "a"');
  });

  it('names an unbound symbol and the statement that uses it', () => {
    const doc: SheetDoc = { statements: [{ id: 'a', run: 'shell', command: 'echo 1', as: '@a' }, { id: 'use', run: 'llm', prompt: 'Explain @a and @ghost' }] };
    expect(errorOf(() => planSheet(doc, 'x')).message).toBe(
      'unbound symbol @ghost: statement "use" uses it, but no statement produces it (as: "@ghost")',
    );
  });

  it('refuses a symbol produced twice, a duplicate id and a statement that uses its own symbol', () => {
    expect(errorOf(() => planSheet({ statements: [{ id: 'a', run: 'shell', command: 'x', as: '@v' }, { id: 'b', run: 'shell', command: 'y', as: '@v' }] }, 'x')).message).toBe(
      '@v is produced by both statement "a" and statement "b"',
    );
    expect(errorOf(() => planSheet({ statements: [{ id: 'a', run: 'shell', command: 'x' }, { id: 'a', run: 'shell', command: 'y' }] }, 'x')).message).toBe(
      'two statements have the id "a"',
    );
    expect(errorOf(() => planSheet({ statements: [{ id: 'a', run: 'shell', command: 'echo @v', as: '@v' }] }, 'x')).message).toContain('"a" uses @v');
  });

  it('lets an undo read its own statement\'s value, and counts other symbols it reads as dependencies', () => {
    const plan = planSheet(
      {
        statements: [
          { id: 'log', run: 'shell', command: 'echo log.txt', as: '@log' },
          { id: 'make', run: 'shell', command: 'echo id-7', as: '@made', undo: { run: 'shell', command: 'echo drop @made >> @log' } },
        ],
      },
      'x',
    );
    expect(plan.statements[1]).toMatchObject({ depth: 1, consumes: ['log'], needs: ['log'] });
  });
});

describe('@symbols', () => {
  it('finds references, not e-mail addresses, and reads @@ as a literal @', () => {
    expect(symbolsIn('mail me@example.com about @cbu, @cp and @cbu again; @@literal')).toEqual(['cbu', 'cp']);
    expect(substituteText('@a and @@b, me@x', { a: '1' })).toBe('1 and @b, me@x');
  });

  it('puts values into shell commands as literal text, bare or inside quotes, so a value cannot run anything', () => {
    const v = `it's "$(rm -rf /)" \\`;
    const shell = (command: string) => (substituteAction({ run: 'shell', command }, { v }) as { command: string }).command;
    expect(shell('printf %s @v > out')).toBe(`printf %s 'it'\\''s "$(rm -rf /)" \\' > out`);
    expect(shell('echo "x @v y"')).toBe(`echo "x it's \\"\\$(rm -rf /)\\" \\\\ y"`);
    expect(shell("echo 'x @v' \\'@v")).toBe(`echo 'x ''it'\\''s "$(rm -rf /)" \\''' \\''it'\\''s "$(rm -rf /)" \\'`);
    // What /bin/sh makes of them: the value, literally.
    const printed = (command: string) => execFileSync('/bin/sh', ['-c', shell(command)], { encoding: 'utf8' });
    expect(printed('printf %s @v')).toBe(v);
    expect(printed('printf %s "<@v>"')).toBe(`<${v}>`);
    expect(printed("printf %s '<@v>' me@v")).toBe(`<${v}>me@v`);
    expect(substituteAction({ run: 'llm', prompt: 'Summarize @v', model: 'm', maxTokens: 5 }, { v: 'a b' })).toMatchObject({ prompt: 'Summarize a b' });
  });
});

describe('sheet files', () => {
  it('reads a YAML sheet checked against the JSON Schema and plans it', () => {
    const undone = SHUFFLED.map((s) => ({ ...s, undo: { run: 'shell', command: 'true' } }));
    const file = sheetFile(['name: onboard', 'transaction: true', 'statements:', ...undone.map((s) => `  - ${JSON.stringify(s)}`)].join('\n'));
    const plan = planSheetFile(file);
    expect(plan).toMatchObject({ name: 'onboard', transaction: true, maxParallel: 4 });
    expect(plan.phases.map((p) => p.length)).toEqual([2, 3, 1]);
  });

  it.each([
    ['a missing field', '  - { id: a, run: shell }', `2:5: statement "a" (statements[0]): must have required property 'command'`],
    ['an unknown key', '  - { id: b, run: shell, command: x, colour: red }', '2:38: statement "b" (statements[0]): unknown key "colour"'],
    ['a misspelt key, before the key it leaves missing', '  - { id: b, run: shell, cmd: x }', '2:26: statement "b" (statements[0]): unknown key "cmd" (and 1 more problem)'],
    ['a wrong kind', '  - { id: c, run: teleport }', '2:19: statement "c" (statements[0].run): must be equal to one of the allowed values (shell, llm, task)'],
    ['a bad symbol', '  - { id: d, run: llm, prompt: hi, as: cbu }', '2:40: statement "d" (statements[0].as): must match pattern "^@[A-Za-z_][A-Za-z0-9_]*$"'],
    ['fields of another kind', '  - { id: e, run: shell, command: x, prompt: y }', '2:5: statement "e" (statements[0]): holds fields of another kind of statement than its "run" says'],
  ])('names %s in one line: the file, the line and column, the statement and the field', (_what, statement, message) => {
    const file = sheetFile(`statements:\n${statement}\n`);
    const err = errorOf(() => planSheetFile(file));
    expect(err).toBeInstanceOf(InvalidInput);
    expect(err.message).toBe(`${file}:${message}`);
  });

  it('names the first statement at fault and counts the other problems', () => {
    const file = sheetFile(['statements:', '  - { id: ok, run: shell, command: x }', '  - id: a', '    run: shell', '  - { id: c, run: teleport }'].join('\n'));
    expect(errorOf(() => planSheetFile(file)).message).toBe(`${file}:3:5: statement "a" (statements[1]): must have required property 'command' (and 1 more problem)`);
  });

  it('gives a YAML syntax error in one line, with the line and column and without the code frame', () => {
    const file = sheetFile('statements:\n  - { id: a, run: shell, command: x\n');
    expect(errorOf(() => planSheetFile(file)).message).toBe(`${file}:3:1: not valid YAML: Flow map in block collection must be sufficiently indented and end with a }`);
  });

  it('turns a cycle into an input error naming the file and the statements', () => {
    const file = sheetFile('statements:\n  - { id: x, run: shell, command: "echo @y", as: "@x" }\n  - { id: y, run: shell, command: "echo @x", as: "@y" }\n');
    const err = errorOf(() => planSheetFile(file));
    expect(err).toBeInstanceOf(InvalidInput);
    expect(err.message).toBe(`${file}:2:5: dependency cycle between statements: "x" -> "y" -> "x"`);
  });
});

describe('inLanes', () => {
  /** Runs items 0..4 two at a time, each until the test lets it end; `full` as inLanes takes it. */
  async function lanes(full?: (running: number, started: number) => boolean) {
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const gates = Array.from({ length: 5 }, () => {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      return { promise, resolve };
    });
    const done = inLanes([0, 1, 2, 3, 4], 2, async (i) => {
      started.push(i);
      peak = Math.max(peak, ++running);
      await gates[i].promise;
      running--;
      return i * 10;
    }, full);
    for (const g of gates) {
      await Promise.resolve();
      g.resolve();
    }
    return { results: await done, started, peak };
  }

  it('runs at most `limit` at once, all of them, starting in order', async () => {
    expect(await lanes()).toEqual({ results: [0, 10, 20, 30, 40], started: [0, 1, 2, 3, 4], peak: 2 });
  });

  it('starts no more once `full` says so: the ones under way finish, and the results are those started', async () => {
    const asked: [number, number][] = [];
    const { results, started } = await lanes((running, n) => {
      asked.push([running, n]);
      return n >= 3;
    });
    expect(started).toEqual([0, 1, 2]);
    expect(results).toEqual([0, 10, 20]);
    expect(asked.slice(0, 2)).toEqual([[0, 0], [1, 1]]);
  });
});

describe('the sheet result table', () => {
  it('shows phases completed and one row per statement with status, value and blocked_by', () => {
    const lines = renderSheetResult({
      name: 's',
      state: 'failed',
      phasesCompleted: 1,
      phasesTotal: 3,
      tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      costUsd: 0,
      statements: [
        { index: 0, id: 'csa', dag_depth: 2, status: 'skipped', error: { code: 'blocked', message: 'blocked: statement "isda" failed', blocked_by: 'isda' } },
        { index: 1, id: 'cbu', dag_depth: 0, status: 'success', value: 'cbu-1' },
        { index: 2, id: 'isda', dag_depth: 1, status: 'failed', error: { code: 'exit_code', message: 'exit code 3' } },
      ],
    });
    expect(lines[0]).toBe('phases: 1/3 completed · $0.00');
    expect(lines.slice(1)).toEqual([
      '#  statement  depth  status   value / error',
      '1  cbu        0      success  cbu-1',
      '2  isda       1      failed   exit_code: exit code 3',
      '0  csa        2      skipped  blocked (blocked by isda): blocked: statement "isda" failed',
    ]);
  });
});

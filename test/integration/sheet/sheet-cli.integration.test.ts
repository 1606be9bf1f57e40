import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { runDex, type DexRun } from '../../support/env/dex-cli';

// The real `dex` binary, spawned. Input checks run against a dead TEMPORAL_ADDRESS: a command
// that got as far as connecting would exit 3, so exit 2 proves nothing was started.

const DEAD_SERVER = '127.0.0.1:1';

// No worker here: each dex command runs its own, on queues of its own.
const testEnv = useDexEnvironment({ server: 'dev' });

/** Runs `dex …` against `address` with a fresh DEX_HOME and queues, and no API key. */
async function dex(args: string[], address: string): Promise<DexRun & { dexHome: string }> {
  const dexHome = mkdtempSync(join(tmpdir(), 'dex-sheet-home-'));
  const queue = `dex-sheet-cli-${Math.random().toString(36).slice(2, 8)}`;
  const vars: NodeJS.ProcessEnv = { TEMPORAL_ADDRESS: address, DEX_HOME: dexHome, DEX_TASK_QUEUE: queue, DEX_HOST_QUEUE: `${queue}@host`, ANTHROPIC_API_KEY: undefined };
  return { ...(await runDex(args, { env: vars })), dexHome };
}

function sheet(lines: string[]): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'dex-sheet-cli-'));
  const file = join(dir, 'onboard.sheet.yaml');
  writeFileSync(file, lines.join('\n') + '\n');
  return { dir, file };
}

describe('dex sheet: tollgate 1 in the client', () => {
  it('exits 2 naming the statements of a cycle, with nothing started', async () => {
    const { dir, file } = sheet([
      'statements:',
      '  - { id: isda, run: shell, command: "touch ran; echo @csa", as: "@isda" }',
      '  - { id: csa, run: shell, command: "touch ran; echo @isda", as: "@csa" }',
    ]);
    const run = await dex(['sheet', file], DEAD_SERVER);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('dependency cycle between statements: "isda" -> "csa" -> "isda"');
    expect(existsSync(join(dir, 'ran'))).toBe(false);
    expect(readdirSync(run.dexHome)).toEqual([]);
  });

  it('exits 2 naming an unbound symbol and the statement that uses it, with nothing started', async () => {
    const { file } = sheet(['statements:', '  - { id: csa, run: shell, command: "echo @isda" }']);
    const run = await dex(['sheet', file, '--json'], DEAD_SERVER);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      error: `${file}:2:5: unbound symbol @isda: statement "csa" uses it, but no statement produces it (as: "@isda")`,
      exitCode: 2,
    });
  });

  it('exits 2 on a sheet that does not match the schema, naming the key', async () => {
    const { file } = sheet(['statements:', '  - { id: a, run: shell, cmd: "echo" }']);
    const run = await dex(['sheet', file], DEAD_SERVER);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('statement "a" (statements[0]): unknown key "cmd"');
  });

  it('--plan prints the phases and exits 0 without connecting to Temporal', async () => {
    const { dir, file } = sheet([
      'statements:',
      '  - { id: csa, run: shell, command: "touch ran; echo @isda" }',
      '  - { id: isda, run: shell, command: "echo @cbu @cp", as: "@isda" }',
      '  - { id: cbu, run: shell, command: "echo cbu-1", as: "@cbu" }',
      '  - { id: cp, run: shell, command: "echo cp-1", as: "@cp" }',
    ]);
    const run = await dex(['sheet', file, '--plan'], DEAD_SERVER);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      ['sheet onboard: 4 statements in 3 phases', 'phase 0: cbu (#2 → @cbu), cp (#3 → @cp)', 'phase 1: isda (#1 → @isda)', 'phase 2: csa (#0)', ''].join('\n'),
    );
    const json = JSON.parse((await dex(['sheet', file, '--plan', '--json'], DEAD_SERVER)).stdout);
    expect(json.order).toEqual([2, 3, 1, 0]);
    expect(json.phases[1]).toEqual([
      { index: 1, id: 'isda', depth: 1, produces: 'isda', consumes: ['cbu', 'cp'], span: { line: 3, column: 5, endLine: 3, endColumn: 67 } },
    ]);
    expect(existsSync(join(dir, 'ran'))).toBe(false);
  });
});

describe('dex sheet: a transaction and for_each, checked in the client', () => {
  it('exits 2 on a transaction with statements lacking an undo, naming them all and placing the first, with nothing started', async () => {
    const { dir, file } = sheet([
      'transaction: true',
      'statements:',
      '  - { id: cbu, run: shell, command: "touch ran; echo cbu-1", as: "@cbu", undo: { run: shell, command: "true" } }',
      '  - { id: note, run: llm, prompt: "About @cbu" }',
      '  - { id: isda, run: shell, command: "touch ran; echo @cbu" }',
      '  - { id: docs, run: task, title: "Register @cbu" }',
    ]);
    const run = await dex(['sheet', file], DEAD_SERVER);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      `dex: ${file}:5:5: transaction: true needs an undo on every shell and task statement, so that a failure can be rolled back; without one: "isda", "docs"`,
    ]);
    expect(existsSync(join(dir, 'ran'))).toBe(false);
    expect(readdirSync(run.dexHome)).toEqual([]);
  });

  it('--plan shows a for_each sheet expanded: each statement once per target, in the phases of its copies', async () => {
    const { file } = sheet([
      'for_each: [fund-a, fund-b, fund-c]',
      'statements:',
      '  - { id: use, run: shell, command: "echo @cbu" }',
      '  - { id: cbu, run: shell, command: "echo cbu-@target", as: "@cbu" }',
    ]);
    const run = await dex(['sheet', file, '--plan'], DEAD_SERVER);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split('\n').slice(0, 3)).toEqual([
      'sheet onboard: 6 statements in 2 phases over 3 targets',
      'phase 0: cbu.fund-a (#3 → @cbu__fund_a), cbu.fund-b (#4 → @cbu__fund_b), cbu.fund-c (#5 → @cbu__fund_c)',
      'phase 1: use.fund-a (#0), use.fund-b (#1), use.fund-c (#2)',
    ]);
  });
});

describe('dex sheet on a real dev server', () => {
  it('runs a sheet, exits 1 when a statement failed, and dex status renders the result as a table', async () => {
    const { file } = sheet([
      'statements:',
      '  - { id: cbu, run: shell, command: "echo cbu-1", as: "@cbu" }',
      '  - { id: isda, run: shell, command: "echo no counterparty for @cbu >&2; exit 4", as: "@isda" }',
      '  - { id: csa, run: shell, command: "echo @isda" }',
    ]);
    const run = await dex(['sheet', file], testEnv.env.address);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/started sheet-onboard-\d+/);
    const id = /^(sheet-onboard-\d+): failed/.exec(run.stdout)?.[1];
    expect(id, run.stdout).toBeDefined();

    const status = await dex(['status', id!], testEnv.env.address);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout.split('\n')[1]).toMatch(/^onboard · took /);
    expect(status.stdout.split('\n').slice(2, 8)).toEqual([
      'phases: 1/3 completed · $0.00',
      '#  statement  depth  status   value / error',
      '0  cbu        0      success  cbu-1',
      '1  isda       1      failed   exit_code: exit code 4: no counterparty for cbu-1',
      '2  csa        2      skipped  blocked (blocked by isda): blocked: statement "isda" failed',
      `${file}:3:5: isda failed: echo no counterparty for @cbu >&2; exit 4`,
    ]);
  });
});

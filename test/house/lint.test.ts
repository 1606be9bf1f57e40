import { resolve } from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

// Type-aware rules need the file to be part of the TypeScript project, so the snippets are
// linted *as* files that exist (their text replaced in memory; nothing is written).
const WORKFLOW_FILE = 'workflows/index.ts';
const CORE_FILE = 'core/run/run-types.ts';

describe('eslint.config.mjs', () => {
  let eslint: ESLint;
  beforeAll(() => {
    eslint = new ESLint({ cwd: resolve(__dirname, '..', '..') });
  });

  async function problems(code: string, filePath = WORKFLOW_FILE): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath });
    return result.messages.map((m) => `${m.ruleId}: ${m.message}`);
  }

  it.each([
    ['a node: built-in', "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;", /no-restricted-imports: 'node:fs'/],
    ['a bare built-in', "import { readFile } from 'fs/promises';\nexport const read = readFile;", /no-restricted-imports: 'fs\/promises'/],
    ['process.env', 'export const x = process.env.X;', /no-restricted-properties: 'process.env'/],
    ['the Anthropic SDK', "import Anthropic from '@anthropic-ai/sdk';\nexport const sdk = Anthropic;", /no-restricted-imports: '@anthropic-ai\/sdk'/],
    ['the Temporal client', "import { Client } from '@temporalio/client';\nexport const c = Client;", /no-restricted-imports: '@temporalio\/client'/],
    ['an activity value', "import { createActivities } from '../activities';\nexport const a = createActivities;", /no-restricted-imports: '\.\.\/activities'/],
    ['a store value', "import { Store } from '../store/sqlite/sqlite-store';\nexport const s = Store;", /no-restricted-imports: '\.\.\/store\/sqlite\/sqlite-store'/],
    ['a reader of core/parsing', "import { parseCassette } from '../core/parsing/cassette';\nexport const p = parseCassette;", /core\/parsing\/ reads input files/],
    ['a floating promise', "import { sleep } from '@temporalio/workflow';\nexport async function w(): Promise<void> {\n  sleep(1);\n}", /no-floating-promises/],
  ])('reports %s in workflow code', async (_what, code, expected) => {
    const found = await problems(code);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(expected);
  });

  it('accepts a clean workflow with type-only imports from activities and core', async () => {
    const code = [
      "import { sleep } from '@temporalio/workflow';",
      "import type * as activities from '../activities';",
      "import type { TaskInput } from '../core/task/task-types';",
      'export type Acts = typeof activities;',
      'export async function w(input: TaskInput): Promise<string> {',
      "  await sleep('1s');",
      '  return input.title;',
      '}',
    ].join('\n');
    expect(await problems(code)).toEqual([]);
  });

  it('keeps Node built-ins out of core/ too', async () => {
    expect(await problems("import { join } from 'node:path';\nexport const j = join;", CORE_FILE)).toEqual([
      expect.stringMatching(/no-restricted-imports: 'node:path'/),
    ]);
  });

  it('asks for type-only imports to be written as such', async () => {
    const found = await problems("import { TaskInput } from '../core/task/task-types';\nexport type T = TaskInput;");
    expect(found).toEqual([expect.stringMatching(/consistent-type-imports/)]);
  });
});

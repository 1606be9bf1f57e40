import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dexGitSync } from '../../host/git/dex-git';

/** The files of the demo repository: a `sum` that subtracts, and a test that catches it. */
const SAMPLE_FILES: Record<string, string> = {
  'README.md': '# math\n\nA tiny library for the dex demo.\n',
  'src/math.js': '/** Adds two numbers. */\nfunction sum(a, b) {\n  return a - b;\n}\n\nmodule.exports = { sum };\n',
  'test/math.test.js':
    "const test = require('node:test');\nconst assert = require('node:assert');\nconst { sum } = require('../src/math');\n\ntest('sum adds two numbers', () => {\n  assert.strictEqual(sum(2, 3), 5);\n});\n",
  'dex.config.yaml': 'verify:\n  - node --test\nmaxIterations: 10\n',
};

/** The task the demo runs on the sample repository. */
export const DEMO_TASK = {
  title: 'Fix sum in src/math.js so the tests pass',
  description: 'test/math.test.js fails: sum(2, 3) should be 5.',
};

/** Creates the sample repository at `dir` as a git repository with one commit. */
export function createSampleRepo(dir: string): void {
  for (const [path, content] of Object.entries(SAMPLE_FILES)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  const git = (...args: string[]) => dexGitSync(dir, ['-c', 'user.name=dex demo', '-c', 'user.email=demo@dex.localhost', ...args]);
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'math: a sum with a bug');
}

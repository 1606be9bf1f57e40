import { describe, expect, it } from 'vitest';
import { taskShapeLines } from '../../../client/render/render-task';
import { setupReportId } from '../../../core/run/ids';
import type { TaskInput, TaskResult } from '../../../core/task/task-types';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { commitProject, lockFromRegistry } from '../../support/projects/real-projects';

const BUG = { path: 'src/duration.js', old_string: 'ms(text) + 1', new_string: 'ms(text)' };
// The fix leaves a debugging line behind, which the project's lint forbids; told so, the agent takes it out.
const FIX_WITH_LOG = { path: 'src/duration.js', old_string: 'ms(text) + 1;', new_string: "ms(text);\nconsole.log('toMs');" };
const TAKE_LOG_OUT = { path: 'src/duration.js', old_string: "\nconsole.log('toMs');", new_string: '' };

const CASSETTE = [
  toolTurn('C-lint', ['edit_file', FIX_WITH_LOG]),
  completionTurn('C-lint', { status: 'complete', summary: 'fixed' }),
  toolTurn('C-lint', ['edit_file', TAKE_LOG_OUT]),
  completionTurn('C-lint', { status: 'complete', summary: 'fixed, without the log line' }),
  toolTurn('C-lint-base', ['edit_file', BUG]),
  completionTurn('C-lint-base', { status: 'complete', summary: 'fixed' }),
];

const dex = useDexEnvironment({ server: 'dev', cassette: CASSETTE, queue: 'dex-it-project-checks' });

/** The owner's lint: no `console.log` left in src/ (a project's own script, run as `npm run lint`). */
const LINT = "const fs = require('fs');\nconst bad = fs.readdirSync('src').filter((f) => /console\\.log/.test(fs.readFileSync('src/' + f, 'utf8')));\nif (bad.length) { console.error('lint: console.log left in ' + bad.join(', ')); process.exit(1); }\n";

/** An npm project tested with uvu whose `toMs` adds 1, with a `lint` script; `alreadyFailing` leaves a console.log in another file of src/. */
function lintedProject(alreadyFailing = false): string {
  return commitProject(
    'linted',
    {
      'package.json': `${JSON.stringify({ name: 'linted', version: '1.0.0', private: true, scripts: { test: 'uvu test', lint: 'node scripts/lint.js' }, dependencies: { ms: '2.1.3' }, devDependencies: { uvu: '0.5.6' } }, null, 2)}\n`,
      '.gitignore': 'node_modules/\n',
      'scripts/lint.js': LINT,
      'src/duration.js': "const ms = require('ms');\n\nexports.toMs = (text) => ms(text) + 1;\n",
      ...(alreadyFailing ? { 'src/debug.js': "console.log('debugging');\n" } : {}),
      'test/duration.test.js': "const { test } = require('uvu');\nconst assert = require('uvu/assert');\nconst { toMs } = require('../src/duration');\n\ntest('parses seconds', () => {\n  assert.is(toMs('2s'), 2000);\n});\n\ntest.run();\n",
    },
    lockFromRegistry,
  );
}

/** What `dex task` gives a repository whose config says nothing: verify and checks picked by setup. */
const asTheClientDoes = (repo: string, checks: TaskInput['checks'] = {}): Partial<TaskInput> => ({ repoPath: repo, verify: [], detectVerify: true, checks, maxRetries: 0 });

/** The texts of every request's last user message the fake model received for `task`. */
const toldTo = (task: string): string[] => dex.requestsFor(task).map((r) => JSON.stringify(r.body?.messages?.at(-1)));

describe("the project's own checks besides its tests", () => {
  it('a lint failure the agent brings in is its own check, told to the agent, fixed, and then passes', async () => {
    const repo = lintedProject();
    const { handle } = await dex.startTask('C-lint', asTheClientDoes(repo));
    dex.recordHistory(handle.workflowId, 'task-workflow-checks.json');
    const result = (await handle.result()) as TaskResult;
    expect(result.state, result.error).toBe('completed');
    expect(result.verifyDetected).toBe('npm test (detected)');
    expect(result.checks).toBe('lint passed');
    // The third request is the answer to the first verify: tests passed, lint failed, and the agent is told which check is its own.
    const told = toldTo('C-lint');
    expect(told).toHaveLength(4);
    expect(told[2]).toContain('Checks that fail because of your change: lint.');
    expect(told[2]).toContain('lint: console.log left in duration.js');
    const setupHead = (await dex.worker.deps.store.getArtifact(setupReportId(handle.workflowId)))?.content.split('\n\n')[0];
    expect(setupHead).toContain('checks: lint (npm run lint)');
    const history = await handle.fetchHistory();
    const scheduled = (history.events ?? []).flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : []));
    // The base was asked once whether lint fails there too (it does not); the second verify passed whole.
    expect(scheduled.filter((n) => n === 'verifyBaseline')).toHaveLength(1);
    expect(scheduled.filter((n) => n === 'verify')).toHaveLength(2);
  });

  it('a lint that already fails on the base commit does not block the task, and every view says so', async () => {
    const repo = lintedProject(true);
    const { handle } = await dex.startTask('C-lint-base', asTheClientDoes(repo));
    const result = (await handle.result()) as TaskResult;
    expect(result.state, result.error).toBe('completed');
    expect(result.verifyPassed).toBe(true);
    expect(result.checks).toBe('lint failed (fails on the base too, not blocking)');
    expect(taskShapeLines(result)).toContain('checks: lint failed (fails on the base too, not blocking)');
    // One verify: the agent was never sent back for a failure that was there before it.
    expect(toldTo('C-lint-base')).toHaveLength(2);
  });
});

// What a replay waits for, on the time-skipping server (docs/testing-your-flows.md): a run that reaches its
// budget waits for a person, whom a people script plays (`raiseBudgetUsd`), and a script without that answer
// ends the replay naming the wait; a model call the cassette answers with 529 twice backs off and retries,
// the backoffs passing at once.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRun } from '../../../client/requests/replay-test-record';
import { Store } from '../../../store/sqlite/sqlite-store';
import { fixSumTurns, toJsonl } from '../../support/model/cassette-builder';
import { runDex } from '../../support/env/dex-cli';
import { sampleRepo } from '../../support/env/dev-server-env';

/** What `dex replay-test` needs and nothing of a developer's: its own DEX_HOME, no model key, the SQLite store. */
function cliEnv(): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'dex-waits-home-'));
  return { DEX_HOME: home, DEX_DEPS_CACHE: join(home, 'deps-cache'), ANTHROPIC_API_KEY: '', DEX_STORE: undefined };
}

/**
 * A recording of `dex task "Fix sum"` on the sample repository with `config` added to its dex.config.yaml:
 * `lines` as the cassette, and the sidecar `--llm record:FILE` writes (a people script's `expect` is what
 * these replays are checked against, so its `end` is the plain one).
 */
function recording(config: string, lines: string): string {
  const repo = sampleRepo();
  appendFileSync(join(repo, 'dex.config.yaml'), config);
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, encoding: 'utf8' }).trim();
  git('commit', '-q', '--allow-empty', '-am', 'config');
  const cassette = join(mkdtempSync(join(tmpdir(), 'dex-waits-')), 'fix-sum.cassette.jsonl');
  writeFileSync(cassette, lines);
  const run: RecordedRun = {
    version: 1,
    kind: 'task',
    repo,
    branch: git('rev-parse', '--abbrev-ref', 'HEAD'),
    startCommit: git('rev-parse', 'HEAD'),
    task: { title: 'Fix sum' },
    workflowId: 'task-math-fix-sum-1',
    end: { state: 'completed', tasks: [{ id: 'fix-sum', state: 'completed', tree: null }] },
  };
  writeFileSync(`${cassette}.run.json`, JSON.stringify(run));
  return cassette;
}

const script = (yaml: string[]) => {
  const file = join(mkdtempSync(join(tmpdir(), 'dex-waits-script-')), 'people.yaml');
  writeFileSync(file, `${yaml.join('\n')}\n`);
  return file;
};

describe('budget waits in a people script', () => {
  // $0.01 cannot hold a call's worst case (1024 tokens of output alone cost $0.015): the task waits at its budget gate before its first call.
  const BUDGET = 'maxTokens: 1024\nbudgets:\n  task: { usd: 0.01 }\n';
  const cassette = recording(BUDGET, toJsonl(fixSumTurns('fix-sum')));

  it('raiseBudgetUsd answers the budget wait, and the run goes on to its end', async () => {
    const people = script(['people:', '  - raiseBudgetUsd: 2.00', 'expect:', '  state: completed', '  tasks: { fix-sum: completed }', '  maxCostUsd: 2']);
    const run = await runDex(['replay-test', cassette, '--script', people], { env: cliEnv() });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/the replay ends as the script's expectations .* expect: completed/);
    expect(run.stdout).toMatch(/answered: raise budget to \$2\.00 \(fix-sum\)/);
  });

  it('a script without that answer ends the replay naming the budget wait: exit 1', async () => {
    const people = script(['expect:', '  state: completed']);
    const run = await runDex(['replay-test', cassette, '--script', people], { env: cliEnv() });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(/the run waits at gate budget \(task fix-sum: the next model call may cost up to \$[\d.]+ \(\d+ tokens\), more than is left of the task's budget\), which has no deadline and which the script does not answer \(`raiseBudgetUsd: N` in `people` answers it\)/);
  });
});

describe('model-call retries in a cassette', () => {
  const overloaded = (retryAfterSeconds: number) => JSON.stringify({ task: 'fix-sum', phase: 'implement', error: { status: 529, type: 'overloaded_error', message: 'Overloaded', retryAfterSeconds } });
  /** The two retry-after delays the cassette asks for, in seconds. */
  const AFTER = [30, 45];

  it('two 529s back off and the third attempt takes the answer, the backoffs passing at once', async () => {
    const cassette = recording('', `${AFTER.map(overloaded).join('\n')}\n${toJsonl(fixSumTurns('fix-sum'))}`);
    const people = script(['expect:', '  state: completed', '  tasks: { fix-sum: completed }']);
    const run = await runDex(['replay-test', cassette, '--script', people, '--json'], { env: cliEnv() });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout) as { replayed: { state: string }; simulatedMs: number; wallMs: number; copy: string };
    expect(doc.replayed.state).toBe('completed');
    // The model was asked three times for the first turn: each attempt took the next line (its claims in the replay's store).
    const store = Store.open(join(dirname(doc.copy), 'dex-home', 'dex.db'));
    const claims = store.database.prepare('SELECT line_no, call_key FROM cassette_claims ORDER BY line_no').all() as { line_no: number; call_key: string }[];
    store.close();
    const first = claims[0].call_key;
    expect(claims.slice(0, 3)).toEqual([
      { line_no: 1, call_key: first },
      { line_no: 2, call_key: `${first}+1` },
      { line_no: 3, call_key: `${first}+2` },
    ]);
    const backoffMs = (AFTER[0] + AFTER[1]) * 1000;
    expect(doc.simulatedMs).toBeGreaterThanOrEqual(backoffMs);
    // Skipped, not waited: most of the backoff is simulated time only (half, not all: on a loaded machine the driver's polls come late).
    expect(doc.simulatedMs - doc.wallMs).toBeGreaterThanOrEqual(backoffMs / 2);
    console.log(`529 twice: ${(doc.simulatedMs / 1000).toFixed(1)} s simulated (${backoffMs / 1000} s of backoff), ${(doc.wallMs / 1000).toFixed(1)} s wall`);
  });
});

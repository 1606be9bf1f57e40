import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { completionTurn, fixSumTurns, inPhase } from '../../support/model/cassette-builder';
import { runDex } from '../../support/env/dex-cli';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { fileAt, sampleRepo } from '../../support/env/dev-server-env';

const TASK = 'fix-sum';

// One task of two phases: implement fixes sum; the first test phase finds a problem (the run
// fails: no retries), the second, in the retried run, passes.
const dex = useDexEnvironment({
  server: 'dev',
  cassette: [
    ...fixSumTurns(TASK),
    ...inPhase('test', [completionTurn(TASK, { status: 'blocked', reason: 'no test covers negative numbers' })]),
    ...inPhase('test', [completionTurn(TASK, { status: 'complete', summary: 'covered' })]),
  ],
});

function repoWithoutRetries(): string {
  const repo = sampleRepo();
  writeFileSync(join(repo, 'dex.config.yaml'), 'verify: ["node --test"]\nmaxRetries: 0\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo });
  git('add', '-A');
  git('commit', '-qm', 'no retries');
  return repo;
}

describe('dex retry ID --from PHASE', () => {
  it('reruns from the implement checkpoint without repeating implement, linked both ways', async () => {
    const env = { ...dex.cliEnv(), ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: dex.fake.url };
    const repo = repoWithoutRetries();
    const first = await runDex(['task', 'Fix sum', '--repo', repo, '--weight', 'small', '--json'], { env });
    expect(first.code, first.stderr).toBe(1);
    const id = JSON.parse(first.stdout).workflowId as string;
    expect(dex.requestsFor(TASK).map((r) => r.headers['x-dex-phase'])).toEqual(['implement', 'implement', 'implement', 'test']);

    const bad = await runDex(['retry', id, '--from', 'deploy'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('has no phase "deploy": its phases are implement, test');
    expect((await runDex(['retry', 'task-nothing-here-1', '--from', 'test'], { env })).code).toBe(2);

    const retried = await runDex(['retry', id, '--from', 'test', '--note', 'negative numbers are covered now', '--json'], { env });
    expect(retried.code, retried.stderr).toBe(0);
    const doc = JSON.parse(retried.stdout);
    expect(doc.workflowId).toBe(`${id}-retry-1`);
    expect(doc.state).toBe('completed');
    // Only the test phase asked the model again, and it was given the note.
    const phases = dex.requestsFor(TASK).map((r) => r.headers['x-dex-phase']);
    expect(phases).toEqual(['implement', 'implement', 'implement', 'test', 'test']);
    expect(JSON.stringify(dex.requestsFor(TASK)[4].body!.messages)).toContain('negative numbers are covered now');
    // It started at implement's checkpoint: sum adds on the new branch without implement running again.
    expect(fileAt(repo, doc.result.commit, 'src/math.js')).toContain('return a + b;');

    const newStatus = JSON.parse((await runDex(['status', doc.workflowId, '--json'], { env })).stdout);
    expect(newStatus.retryOf).toEqual({ workflowId: id, phase: 'test' });
    const oldStatus = await runDex(['status', id], { env });
    expect(oldStatus.stdout).toContain(`retried as ${id}-retry-1`);
    expect(await (await dex.client.workflow.getHandle(doc.workflowId).describe()).staticSummary()).toContain(`retry of ${id} from test`);
  });
});

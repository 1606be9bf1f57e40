// Backoffs pass at once on the time-skipping server (docs/testing-your-flows.md#how-time-passes): a
// roadmap task whose verify fails four times waits 1 + 2 + 4 + 8 s (±10%) of retry-map backoff, with
// nobody answering and with a people script whose answer is still to come while it backs off.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDexTest, type DexTest } from '../../../client/testing';
import { completionTurn, inPhase, toolTurn } from '../../support/model/cassette-builder';

const ROUNDS = 5;
/** The least the four backoffs can add up to: 15 s less their 10% jitter. */
const LEAST_BACKOFF_MS = 0.9 * (1 + 2 + 4 + 8) * 1000;

function cassette(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dex-backoffs-')), 'rounds.cassette.jsonl');
  // Each round: implement writes NOTES.md, test finds it wanting (a `blocked` check fails the phase and
  // the retry map sends the work back to implement after a backoff); the last round's test passes.
  const lines = Array.from({ length: ROUNDS }, (_, i) => [
    toolTurn('R1', ['write_file', { path: 'NOTES.md', content: `round ${i + 1}\n` }]),
    completionTurn('R1', { status: 'complete', summary: `round ${i + 1}` }),
    ...inPhase('test', [completionTurn('R1', i + 1 < ROUNDS ? { status: 'blocked', summary: `round ${i + 1} is not enough`, reason: `round ${i + 1} is not enough` } : { status: 'complete', summary: 'enough' })]),
  ]).flat();
  writeFileSync(file, lines.map(({ task, phase, response }) => JSON.stringify({ task, phase, response })).join('\n') + '\n');
  return file;
}

/** A small roadmap task (implement, test) with `gates` in its config. */
function roundsRepo(gates: string): string {
  const repo = mkdtempSync(join(tmpdir(), 'rounds-'));
  writeFileSync(join(repo, 'ROADMAP.md'), '- [ ] R1: Write NOTES.md (weight: small)\n');
  writeFileSync(join(repo, 'dex.config.yaml'), `verify: ["test -e NOTES.md || true"]\nmaxRetries: 5\nrunaway: { sameFailure: 10 }\n${gates}`);
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=me', '-c', 'user.email=me@example.com', ...args], { cwd: repo });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'roadmap');
  return repo;
}

describe('retry backoffs on the time-skipping server', () => {
  let dex: DexTest;
  let rounds: string;
  beforeAll(async () => {
    rounds = cassette();
    dex = await startDexTest({ cassette: rounds });
  }, 60_000);
  afterAll(() => dex.stop());

  const skipped = (run: { simulatedMs: number; wallMs: number }, what: string) => {
    console.log(`${what}: ${(run.simulatedMs / 1000).toFixed(1)} s simulated, ${(run.wallMs / 1000).toFixed(1)} s wall`);
    // Time was skipped, not waited: most of the backoffs are in the simulated time and not in the wall time. Half, not
    // all: on a loaded machine the driver's polls come late, and a backoff may partly run out in real time first.
    expect(run.simulatedMs - run.wallMs).toBeGreaterThanOrEqual(LEAST_BACKOFF_MS / 2);
  };

  it('pass at once with nobody answering', async () => {
    const run = await dex.runRoadmap({ roadmap: join(roundsRepo(''), 'ROADMAP.md') });
    expect(run.state, run.error).toBe('completed');
    skipped(run, 'backoffs, nobody answering');
  });

  it('pass at once while a scripted answer is still to come, and the deadline it targets is not skipped past', async () => {
    const run = await dex.runRoadmap({
      roadmap: join(roundsRepo('gates:\n  afterVerify: { deadline: 1h, defaultAction: reject }\n'), 'ROADMAP.md'),
      people: [...Array.from({ length: ROUNDS }, () => ({ approve: 'after-verify:implement' })), { approve: 'after-verify:test', note: 'enough' }],
    });
    expect(run.state, run.error).toBe('completed');
    expect(run.answered).toHaveLength(ROUNDS + 1);
    expect(run.simulatedMs).toBeLessThan(3600_000);
    skipped(run, 'backoffs with an answer to come');
  });
});

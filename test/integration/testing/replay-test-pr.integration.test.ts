// `dex replay-test` of a landing through pull requests (docs/landing-through-prs.md#replaying-a-landing):
// recorded with the real `dex run --llm record:FILE` on the dev server against the fake GitHub
// (a real bare repository behind git http-backend, real CI in checkouts), then replayed on the
// time-skipping server with the forge played back from the sidecar: no request reaches the forge,
// no token is needed, a person answers the merge gate a day later, and a CI stretched to three
// hours passes in seconds of wall time.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedForgeCall } from '../../../client/requests/forge-recording';
import type { RecordedRun } from '../../../client/requests/replay-test-record';
import { buildRoadmapInput } from '../../../client/requests/roadmap-request';
import { readSettings } from '../../../client/settings';
import type { ChecksReport } from '../../../core/roadmap/pull-request-types';
import type { RunStatus } from '../../../core/run/run-types';
import { ciChangedSignal, decideUpdate } from '../../../core/run/definitions';
import { completionTurn, inPhase, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { runDex } from '../../support/env/dex-cli';
import { startFakeForge, type FakeForge } from '../../support/forge/fake-forge';
import { git } from '../../support/forge/fake-forge-git';
import { roadmapRepo } from '../../support/plans/roadmap-fixture';
import { allText } from '../../support/env/tree-text';

const TOKEN_ENV = 'DEX_REPLAY_FORGE_TOKEN';
const TOKEN = 'forge-token-replay-0123456789';
const DAY = 86_400_000;
const HOURS_3 = 3 * 3_600_000;
const write = (path: string, content: string) => [
  toolTurn('P1', ['write_file', { path, content }]),
  completionTurn('P1', { status: 'complete', summary: `P1: wrote ${path}` }),
];

// What the fake Anthropic server answers the recorded run with, as a live model would.
const dex = useDexEnvironment({
  server: 'dev',
  cassette: [...write('src/two.js', '// TODO: tidy\nexports.two = () => 2;\n'), ...inPhase('fix-ci', write('src/two.js', 'exports.two = () => 2;\n'))],
});

const show = (repo: string, rev: string, path: string) => execFileSync('git', ['show', `${rev}:${path}`], { cwd: repo, encoding: 'utf8' });
const people = (dir: string) => {
  const file = join(dir, 'people.yaml');
  writeFileSync(file, 'people:\n  - approve: merge\n    task: P1\n    after: 1d\nexpect:\n  sameAsRecorded: true\n');
  return file;
};

describe('dex replay-test of a landing through pull requests', () => {
  let forge: FakeForge;
  let cassette: string;
  let sidecar: RecordedRun;
  let requestsAfterRecording = 0;
  // What the recording `dex run` printed and left in its DEX_HOME (its store, the background host's log).
  let recordingOutput = '';
  let recordingHome = '';

  beforeAll(async () => {
    forge = await startFakeForge({
      token: TOKEN,
      seed: false,
      checks: [
        { name: 'test', command: 'node --test' },
        { name: 'lint', command: `if grep -rn TODO src; then echo "lint: a TODO is left in src (pushed with ${TOKEN})"; exit 1; fi; echo clean` },
      ],
    });
    const land = `land:\n  remote: origin\n  mode: pr\n  pr: { apiUrl: "${forge.apiUrl}", tokenEnv: ${TOKEN_ENV}, profile: review, ciTimeoutMinutes: 600 }\n`;
    const repo = roadmapRepo('- [ ] P1: Add two\n', `verify: ["node --test"]\n${land}`);
    await git(repo, ['push', '-q', forge.httpRemoteUrl, 'main']);
    await git(repo, ['remote', 'add', 'origin', forge.remoteUrl]);
    await forge.trustIn(repo);
    cassette = join(mkdtempSync(join(tmpdir(), 'dex-record-pr-')), 'p1.cassette.jsonl');
    const { workflowId } = buildRoadmapInput({ roadmap: join(repo, 'ROADMAP.md'), llm: 'anthropic' }, readSettings({}), { ANTHROPIC_API_KEY: 'k', [TOKEN_ENV]: TOKEN });
    const handle = dex.client.workflow.getHandle(workflowId);
    // What `dex webhook` does for completed check runs, and the person who approves the merge once green.
    const told = new Set<number>();
    const person = setInterval(() => {
      for (const run of forge.ci.runs.filter((r) => r.status === 'completed' && !told.has(r.id))) {
        told.add(run.id);
        handle.signal(ciChangedSignal, { owner: forge.owner, repo: forge.repo, sha: run.headSha }).catch(() => {});
      }
      handle
        .query<RunStatus>('status')
        .then((s) => (s.waitingFor?.gate === 'merge' ? handle.executeUpdate(decideUpdate, { args: [{ action: 'approve', taskId: 'P1', by: 'test' }] }) : undefined))
        .catch(() => {});
    }, 300);
    const cli = dex.cliEnv();
    const live = { ...cli, ANTHROPIC_BASE_URL: dex.fake.url, ANTHROPIC_API_KEY: 'test-key', [TOKEN_ENV]: TOKEN };
    const run = await runDex(['run', join(repo, 'ROADMAP.md'), '--llm', `record:${cassette}`], { env: live }).finally(() => clearInterval(person));
    expect(run.code, run.stderr).toBe(0);
    recordingOutput = run.stdout + run.stderr;
    recordingHome = cli.DEX_HOME!;
    expect(show(forge.bare, 'main', 'src/two.js')).toBe('exports.two = () => 2;\n');
    sidecar = JSON.parse(readFileSync(`${cassette}.run.json`, 'utf8')) as RecordedRun;
    requestsAfterRecording = forge.requests.length;
  }, 180_000);

  afterAll(async () => forge?.close());

  it('keeps what the forge answered in the sidecar, the check log redacted and no token anywhere', () => {
    const forgeRecord = sidecar.forge!;
    expect(forgeRecord).toMatchObject({ remote: 'origin', landing: { owner: forge.owner, repo: forge.repo, profile: 'review', tokenEnv: TOKEN_ENV } });
    const activities = forgeRecord.calls.map((c) => c.activity);
    expect(activities.filter((a) => a === 'openPullRequest')).toHaveLength(1);
    expect(activities).toEqual(expect.arrayContaining(['readChecks', 'rerunCheck', 'readCheckLog', 'mergePullRequest', 'deletePullBranch']));
    const log = Object.values(forgeRecord.logs).join('\n');
    expect(log).toContain('lint: a TODO is left in src');
    expect(log).toContain('pushed with [REDACTED');
    const places = {
      'the sidecar': JSON.stringify(sidecar),
      'the cassette': readFileSync(cassette, 'utf8'),
      "dex run's output": recordingOutput,
      'DEX_HOME (the store, the host and server logs)': allText(recordingHome),
    };
    for (const [place, text] of Object.entries(places)) expect(text.includes(TOKEN), `the forge token in ${place}`).toBe(false);
  });

  it('replays on the time-skipping server with the forge played back: the same end, a day at the merge gate, nothing asked of the forge', async () => {
    const run = await runDex(['replay-test', cassette, '--script', people(dirname(cassette)), '--json'], { env: dex.cliEnv() });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc).toMatchObject({ same: true, differences: [], replayed: { state: 'completed' } });
    expect(doc.answered).toEqual(['approve merge (P1)']);
    expect(doc.simulatedMs).toBeGreaterThanOrEqual(DAY);
    console.log(`replayed PR landing: ${(doc.simulatedMs / 3_600_000).toFixed(1)} h simulated in ${(doc.wallMs / 1000).toFixed(1)} s`);
    // The forge was not asked anything; the pushes and the merge went to the replay's own bare remote.
    expect(forge.requests.length).toBe(requestsAfterRecording);
    const remote = join(dirname(doc.copy), 'remote.git');
    expect(show(remote, 'main', 'src/two.js')).toBe('exports.two = () => 2;\n');
    expect(show(remote, 'main', 'ROADMAP.md')).toContain('- [x] P1');
  }, 120_000);

  it('a recording whose CI took three hours replays in seconds of wall time and ends the same', async () => {
    // What a recording of a slow CI holds: the final push's checks pending for three hours before they
    // passed. Made from the real recording by holding its last push's answers back three hours.
    const stretched = join(mkdtempSync(join(tmpdir(), 'dex-slow-ci-')), 'slow.cassette.jsonl');
    copyFileSync(cassette, stretched);
    const calls = sidecar.forge!.calls;
    const reads = calls.filter((c) => c.activity === 'readChecks');
    const lastSha = (reads.at(-1)!.input as { sha: string }).sha;
    const from = calls.findIndex((c) => c.activity === 'readChecks' && (c.input as { sha: string }).sha === lastSha);
    const first = calls[from].result as ChecksReport;
    const pending: RecordedForgeCall = { ...calls[from], result: { ...first, checks: first.checks.map((c) => ({ ...c, state: 'pending' })) } };
    const later = calls.slice(from).map((c) => ({ ...c, atMs: c.atMs + HOURS_3 }));
    writeFileSync(`${stretched}.run.json`, JSON.stringify({ ...sidecar, forge: { ...sidecar.forge, calls: [...calls.slice(0, from), pending, ...later] } }));
    const run = await runDex(['replay-test', stretched, '--script', people(dirname(stretched)), '--json'], { env: dex.cliEnv() });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc).toMatchObject({ same: true, replayed: { state: 'completed' } });
    expect(doc.simulatedMs).toBeGreaterThanOrEqual(HOURS_3 + DAY);
    console.log(`replayed a 3-hour CI and a day-long review: ${(doc.simulatedMs / 3_600_000).toFixed(1)} h simulated in ${(doc.wallMs / 1000).toFixed(1)} s`);
    expect(forge.requests.length).toBe(requestsAfterRecording);
  }, 120_000);

  it('refuses --dev-server for it in one line, exit 2, nothing made', async () => {
    const run = await runDex(['replay-test', cassette, '--dev-server'], { env: dex.cliEnv() });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/a landing through pull requests replays on the time-skipping server, where its forge is played back: drop --dev-server/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});

// The pull-request landing scripts/webui/webui-screenshots.ts photographs (docs/landing-through-prs.md#what-a-person-sees-while-it-waits):
// a one-task roadmap with `land.mode: pr` against the fake GitHub of the tests (test/support/forge/fake-forge.ts:
// a real bare repository behind git http-backend over HTTPS, real checks in checkouts), whose `test`
// check passes and whose `build` check stays pending until the pictures are taken.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSampleRepo } from '../../client/demo/sample-repo';
import { dexGitSync } from '../../host/git/dex-git';
import { completionTurn, toJsonl, toolTurn } from '../../test/support/model/cassette-builder';
import { startFakeForge } from '../../test/support/forge/fake-forge';
import { git as pushAsync } from '../../test/support/forge/fake-forge-git';

const TOKEN_ENV = 'DEX_SHOTS_FORGE_TOKEN';
const TOKEN = 'forge-token-screenshots-0123456789';
/** What the run's current details say once `test` has passed: the picture waits for it. */
export const PR_WAITING = 'waiting for CI on PR #1: build pending, test passed';

/** How the script starts a process it stops at the end, its output in `logFile`. */
type Start = (name: string, args: string[], env: NodeJS.ProcessEnv, logFile: string) => ChildProcess;

/**
 * Starts the fake GitHub and `dex run` of the roadmap in the background (`start`), and resolves
 * with the run's id once its landing waits for CI with `test` passed and `build` pending. `close`
 * lets `build` pass and stops the forge (the script stops `dex run` with its other processes).
 */
export async function startPrLanding(work: string, env: NodeJS.ProcessEnv, start: Start, temporal: string, say: (line: string) => void) {
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  const forge = await startFakeForge({
    token: TOKEN, seed: false,
    checks: [{ name: 'build', run: () => held.then(() => ({ ok: true, log: 'built' })) }, { name: 'test', command: 'node --test' }],
  });
  const close = async () => {
    release();
    await forge.close();
  };
  try {
    const repo = join(work, 'pr', 'math');
    createSampleRepo(repo);
    const math = join(repo, 'src', 'math.js');
    writeFileSync(math, readFileSync(math, 'utf8').replace('return a - b;', 'return a + b;'));
    writeFileSync(join(repo, 'ROADMAP.md'), '- [ ] A1: Add one() to src/one.js\n');
    const pr = `{ apiUrl: "${forge.apiUrl}", tokenEnv: ${TOKEN_ENV}, checks: [build, test] }`;
    writeFileSync(join(repo, 'dex.config.yaml'), `verify: ["node --test"]\nland:\n  remote: origin\n  mode: pr\n  pr: ${pr}\n`);
    const git = (...args: string[]) => dexGitSync(repo, ['-c', 'user.name=dex demo', '-c', 'user.email=demo@dex.localhost', ...args]);
    git('add', '-A');
    git('commit', '-qm', 'a roadmap landed through pull requests');
    // The fake serves from this process: a synchronous git would wait on a server that cannot answer.
    await pushAsync(repo, ['push', '-q', forge.httpRemoteUrl, 'main']);
    git('remote', 'add', 'origin', forge.remoteUrl);
    await forge.trustIn(repo);
    const cassette = join(work, 'pr.cassette.jsonl');
    writeFileSync(cassette, toJsonl([
      toolTurn('A1', ['write_file', { path: 'src/one.js', content: 'exports.one = () => 1;\n' }]),
      completionTurn('A1', { status: 'complete', summary: 'one() returns 1' }),
    ]));
    const log = join(work, 'dex-run.log');
    start('dex run', ['run', join(repo, 'ROADMAP.md'), '--llm', `replay:${cassette}`], { ...env, [TOKEN_ENV]: TOKEN }, log);
    const text = () => (existsSync(log) ? readFileSync(log, 'utf8') : '');
    const deadline = Date.now() + 120_000;
    let told = false;
    for (;;) {
      const id = /started (\S+)/.exec(text())?.[1];
      const waiting = id ? landingWaits(id, env) : undefined;
      if (id && waiting === PR_WAITING) {
        say(`${id} waits for CI on PR #1, build held pending`);
        return { id, close };
      }
      // What `dex webhook` does on GitHub's check_run event: once `test` completed, wake the wait for CI at once.
      const test = forge.ci.runs.find((r) => r.name === 'test' && r.headSha === forge.pulls[0]?.headSha && r.status === 'completed');
      if (id && test && !told && waiting) {
        told = true;
        const input = JSON.stringify({ owner: forge.owner, repo: forge.repo, sha: test.headSha });
        const sent = spawnSync(temporal, ['workflow', 'signal', '--address', env.TEMPORAL_ADDRESS!, '--workflow-id', id, '--name', 'ciChanged', '--input', input], { encoding: 'utf8' });
        if (sent.status !== 0) throw new Error(`temporal workflow signal ciChanged failed: ${sent.stderr}`);
        say(`${id}: told that CI changed on PR #1`);
      }
      if (Date.now() > deadline) throw new Error(`dex run never waited for CI with test passed (last: ${waiting}):\n${text()}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  } catch (err) {
    await close();
    throw err;
  }
}

/** What the run's landing of A1 waits for, as `dex status --json` says. */
function landingWaits(id: string, env: NodeJS.ProcessEnv): string | undefined {
  const status = spawnSync(process.execPath, [join(__dirname, '..', '..', 'bin', 'dex.js'), 'status', id, '--json'], { env, encoding: 'utf8' });
  try {
    const doc = JSON.parse(status.stdout) as { tasks?: { pullRequest?: { waiting?: string } }[] };
    return doc.tasks?.[0]?.pullRequest?.waiting;
  } catch {
    return undefined;
  }
}

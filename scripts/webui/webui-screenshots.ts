/**
 * Remakes the Web UI pictures in docs/ (README "Watching runs in the Web UI"):
 *
 *     npm run screenshots            # or: npx tsx scripts/webui/webui-screenshots.ts [--out DIR]   (default: docs/)
 *
 * Starts its own Temporal dev server (the pinned CLI, on free ports, in memory, with dex's
 * search attributes) and a fresh DEX_HOME in a temporary folder, so a server or ~/.dex of
 * yours is never touched; starts the credential-free workflow host (`dex worker --workflows-only`,
 * as `dex server` does), runs `dex demo` (a completed task) and a foreground task whose model
 * answers "blocked", killing its command once it waits, a task whose phase is a Claude Code
 * session (docs/claude-code.md), a best-of-3 task (docs/attempts.md), and a roadmap task landing through a pull request on the tests'
 * fake GitHub, waiting for CI (scripts/webui/webui-pr-landing.ts); then photographs, with Debian's
 * Chromium driven by playwright-core, the list of waiting runs that `dex list` links to and each
 * run's page. Everything it started, and the temporary folder, goes at the end, on success or
 * failure. Not part of `npm test`.
 *
 * Needs /usr/bin/chromium (apt-get install chromium); exits 2 without it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createSampleRepo } from '../../client/demo/sample-repo';
import { ensureTemporalCli } from '../../client/toolchain/toolchain';
import { searchAttributeArgs } from '../../client/server/dev-server';
import { freePort, portOpen } from '../../host/local-ports';
import { claudeCodeLines, completionLine } from './webui-cassettes';
import { attemptsTask } from './webui-attempts';
import { shootList, shootRun } from './webui-pages';
import { PR_WAITING, startPrLanding } from './webui-pr-landing';
import { sandboxAvailability } from '../../host/sandbox/sandbox-availability';
import { dexGitSync } from '../../host/git/dex-git';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = resolve(__dirname, '..', '..');
const DEX = join(ROOT, 'bin', 'dex.js');
const VIEWPORT = { width: 1400, height: 900 };
/** How long one dex command may take (the demo takes a few seconds). */
const DEX_TIMEOUT_MS = 180_000;
/** Without these, this machine's closed network makes Chromium misbehave (docs of the machine). */
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',];

/** What the waiting run's model answers: it stops and asks a person. */
const BLOCKED_REASON =
  'sum() subtracts, but two callers in src/ rely on that. Fix sum and update the callers, or add a new add() and leave sum alone?';
const WAITING_TASK = { title: 'Fix sum in src/math.js', description: 'test/math.test.js fails: sum(2, 3) should be 5.' };

const started = Date.now();
const say = (line: string) => console.error(`[screenshots ${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    await sleep(500);
  }
}

/** The processes this script started, stopped at the end whatever happens. */
const children: { name: string; proc: ChildProcess }[] = [];
/** The temporary folder (DEX_HOME, repositories, logs, Chromium's profile), removed at the end. */
let tmp: string | undefined;

/** Chromium, once started. */
let browser: import('playwright-core').BrowserContext | undefined;
/** What else goes at the end: the fake GitHub of the pull-request landing. */
const closers: (() => Promise<void>)[] = [];
/** Set once the script is stopping: nothing new is started after it. */
let stopping = false;
let cleaning: Promise<void> | undefined;

/** Stops every process this script started (the newest first) and removes the temporary folder; once. */
function cleanUp(): Promise<void> {
  stopping = true;
  return (cleaning ??= (async () => {
    await browser?.close().catch(() => {});
    for (const child of [...children].reverse()) await stop(child);
    for (const close of closers) await close().catch(() => {});
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  })());
}

function track(name: string, proc: ChildProcess): { name: string; proc: ChildProcess } {
  const entry = { name, proc };
  children.push(entry);
  if (stopping) void stop(entry);
  return entry;
}

function startBackground(name: string, cmd: string, args: string[], env: NodeJS.ProcessEnv, logFile: string): ChildProcess {
  const out = openSync(logFile, 'a');
  if (stopping) throw new Error('stopping');
  const proc = spawn(cmd, args, { env, stdio: ['ignore', out, out], detached: true });
  closeSync(out);
  track(name, proc);
  return proc;
}

/** SIGTERM to the process group, then SIGKILL if it has not ended within 10 s. */
async function stop({ name, proc }: { name: string; proc: ChildProcess }): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null || proc.pid === undefined) return;
  const ended = new Promise<void>((r) => proc.once('exit', () => r()));
  const kill = (sig: NodeJS.Signals) => {
    try { process.kill(-proc.pid!, sig); } catch { /* already gone */ }
  };
  kill('SIGTERM');
  const timedOut = await Promise.race([ended.then(() => false), sleep(10_000).then(() => true)]);
  if (timedOut) {
    say(`${name} did not stop on SIGTERM: SIGKILL`);
    kill('SIGKILL');
    await Promise.race([ended, sleep(5_000)]);
  }
}

/** Runs `dex ARGS --json` (or, with `json: false`, as a person would) to the end (in its own process group, stopped with the rest on a signal). */
function runDex(args: string[], env: NodeJS.ProcessEnv, { json = true } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  if (stopping) return Promise.reject(new Error('stopping'));
  const proc = spawn(process.execPath, [DEX, ...args, ...(json ? ['--json'] : [])], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const entry = track(`dex ${args[0]}`, proc);
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (d: Buffer) => (stdout += d));
  proc.stderr!.on('data', (d: Buffer) => (stderr += d));
  const timer = setTimeout(() => {
    say(`${entry.name} is still running after ${DEX_TIMEOUT_MS / 1000}s: stopping it`);
    void stop(entry);
  }, DEX_TIMEOUT_MS);
  return new Promise((res, rej) => {
    proc.once('error', rej);
    proc.once('close', (code) => {
      clearTimeout(timer);
      res({ code, stdout, stderr });
    });
  });
}

/**
 * Runs `dex ARGS` in the foreground until its run waits at a gate, then kills the command (SIGTERM,
 * as `kill` does) and returns the run's id: the run is left waiting, served by nothing of the command's.
 */
function killWhenWaiting(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const proc = spawn(process.execPath, [DEX, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  track(`dex ${args[0]}`, proc);
  let stderr = '';
  return new Promise((res, rej) => {
    proc.stderr!.on('data', (d: Buffer) => {
      stderr += d;
      if (stderr.includes('waiting at gate') && proc.exitCode === null) proc.kill('SIGTERM');
    });
    proc.once('close', () => {
      const id = /started (\S+)/.exec(stderr)?.[1];
      if (id && stderr.includes('SIGTERM: left')) res(id);
      else rej(new Error(`dex ${args.join(' ')} ended before its run waited:\n${stderr}`));
    });
  });
}

/** Runs `dex ARGS --json`, which must exit 0, and returns its JSON document. */
async function dex(args: string[], env: NodeJS.ProcessEnv): Promise<Record<string, unknown>> {
  const run = await runDex(args, env);
  let doc: Record<string, unknown> | undefined;
  try {
    doc = JSON.parse(run.stdout);
  } catch {
    doc = undefined;
  }
  if (run.code !== 0 || !doc) throw new Error(`dex ${args.join(' ')} exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  return doc;
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const outDir = values.out ? resolve(values.out) : join(ROOT, 'docs');
  if (!existsSync(CHROMIUM)) {
    console.error(`${CHROMIUM} is missing: install Debian's Chromium first (as root: apt-get update && apt-get install -y chromium)`);
    return 2;
  }
  mkdirSync(outDir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'dex-screenshots-'));
  tmp = work;
  try {
    // 1. A dev server of our own, in memory, on free ports, with dex's search attributes.
    const [port, uiPort] = [await freePort(), await freePort()];
    const ui = `http://127.0.0.1:${uiPort}`;
    const serverArgs = [
      'server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--ui-port', String(uiPort), '--log-level', 'warn',
      ...searchAttributeArgs(),
    ];
    say(`starting the Temporal dev server on 127.0.0.1:${port}, Web UI ${ui}`);
    const server = startBackground('dev server', ensureTemporalCli(say), serverArgs, process.env, join(work, 'server.log'));
    await waitFor('the dev server', 60_000, async () => {
      if (server.exitCode !== null) throw new Error(`the dev server exited ${server.exitCode}:\n${readFileSync(join(work, 'server.log'), 'utf8')}`);
      if (!(await portOpen(port))) return undefined;
      const res = await fetch(ui).catch(() => undefined);
      return res?.ok ? true : undefined;
    });

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
      TEMPORAL_UI_URL: ui,
      TEMPORAL_NAMESPACE: 'default',
      DEX_HOME: join(work, 'dex-home'),
      DEX_LOG_LEVEL: 'ERROR',
    };
    delete env.ANTHROPIC_API_KEY;

    // 2. The workflow host `dex server` keeps on the embedded server: every run stays legible after its command.
    startBackground('workflow host', process.execPath, [DEX, 'worker', '--workflows-only'], env, join(work, 'workflow-host.log'));

    // 3. The demo: a task completed from the bundled cassette; its command has exited long before the picture.
    say('dex demo');
    const demo = await dex(['demo', '--dir', join(work, 'demo', 'math')], env);
    const demoId = String(demo.workflowId);
    say(`demo ${demoId}: ${String(demo.state)}`);

    // 4. A task started in the foreground that waits at a gate; its command is killed once it waits.
    // Its repository writes no verify, as most do: the Current Details say which one dex detected.
    const repo = join(work, 'gate', 'math');
    createSampleRepo(repo);
    writeFileSync(join(repo, 'dex.config.yaml'), 'maxIterations: 10\n');
    writeFileSync(join(repo, 'package.json'), `${JSON.stringify({ name: 'math', private: true, scripts: { test: 'node --test' } }, null, 2)}\n`);
    const git = (...args: string[]) => dexGitSync(repo, ['-c', 'user.name=dex demo', '-c', 'user.email=demo@dex.localhost', ...args]);
    git('add', '-A');
    git('commit', '-qm', 'no verify written: npm test is the suite');
    const cassette = join(work, 'blocked.cassette.jsonl');
    writeFileSync(cassette, completionLine({ status: 'blocked', reason: BLOCKED_REASON }) + '\n');
    const noSandbox = sandboxAvailability().ok ? [] : ['--unsafe-no-sandbox'];
    const waitingId = await killWhenWaiting(['task', WAITING_TASK.title, '--description', WAITING_TASK.description, '--repo', repo, '--llm', `replay:${cassette}`, ...noSandbox], env);
    say(`${waitingId} waits, and its command is gone`);
    const list = await runDex(['list'], env, { json: false });
    const link = /waiting for you \(in the Web UI: (\S+)\):/.exec(list.stdout)?.[1];
    if (!link) throw new Error(`dex list gave no link to the waiting runs:\n${list.stdout}`);

    // 5. A task whose phase is a Claude Code session (docs/claude-code.md), from a cassette, to its end.
    const ccRepo = join(work, 'claude-code', 'math');
    createSampleRepo(ccRepo);
    writeFileSync(join(ccRepo, 'dex.config.yaml'), `${readFileSync(join(ccRepo, 'dex.config.yaml'), 'utf8')}\nagent: claude-code\n`);
    spawnSync('git', ['commit', '-qam', 'Claude Code works the phases'], { cwd: ccRepo });
    const ccCassette = join(work, 'claude-code.cassette.jsonl');
    writeFileSync(ccCassette, claudeCodeLines());
    const cc = await dex(['task', 'Fix sum with Claude Code', '--repo', ccRepo, '--llm', `replay:${ccCassette}`], env);
    const ccId = String(cc.workflowId);
    say(`claude-code task ${ccId}: ${String(cc.state)}`);

    // 5b. A task of three attempts (docs/attempts.md): the Current Details hold the table of attempts and the choice.
    const bestId = await attemptsTask(work, (args) => dex(args, env));
    // 6. A roadmap task landing through a pull request on the fake GitHub, waiting for its CI (build held pending).
    const pr = await startPrLanding(work, env, (name, args, e, log) => startBackground(name, process.execPath, [DEX, ...args], e, log), ensureTemporalCli(say), say);
    closers.push(pr.close);

    // 7. The pictures.
    const { chromium } = await import('playwright-core');
    browser = await chromium.launchPersistentContext(join(work, 'chromium-profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: VIEWPORT,
      deviceScaleFactor: 1,
      // This script's own handlers close Chromium with everything else.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    if (stopping) throw new Error('stopping');
    const page = browser.pages()[0] ?? (await browser.newPage());
    await shootList(page, link, [waitingId], join(outDir, 'webui-list.png'));
    await shootRun(page, ui, demoId, 'completed', join(outDir, 'webui-run.png'));
    await shootRun(page, ui, waitingId, BLOCKED_REASON.split(',')[0], join(outDir, 'webui-waiting.png'));
    await shootRun(page, ui, ccId, 'completed', join(outDir, 'webui-claude-code.png'));
    await shootRun(page, ui, pr.id, PR_WAITING, join(outDir, 'webui-pr-waiting.png'));
    await shootRun(page, ui, bestId, 'chose', join(outDir, 'webui-attempts.png'));
    say(`done: the pictures are in ${outDir}`);
    return 0;
  } finally {
    await cleanUp();
  }
}

let ending = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    if (ending) return;
    ending = true;
    say(`${sig}: stopping what this script started`);
    void cleanUp().finally(() => process.exit(sig === 'SIGINT' ? 130 : 143));
  });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (ending) return; // the signal handler exits once everything is stopped
    console.error(err instanceof Error ? err.stack ?? err.message : err);
    process.exit(1);
  },
);

/**
 * What dex leaves running (docs/architecture.md#what-runs-in-the-background), measured: twenty
 * `dex demo` commands with ten different queues and homes on the embedded server, then the dex
 * processes left running (count, RSS) right after, after the hosts' idle time, and after every
 * run answered `dex status` and `temporal workflow metadata` again.
 *
 *     DEX_WORKFLOW_HOST_IDLE=30 npx tsx scripts/background-hosts.ts [--tree DIR] [--commands 20] [--combos 10] [--stop]
 *
 * The issue's "an hour later" is the idle time here (DEX_WORKFLOW_HOST_IDLE seconds, default
 * 30 for this script; dex's default is 1800). `--tree` runs another checkout's `bin/dex.js`
 * (e.g. one before this change, for the figures before). `--stop` ends with `dex server stop`.
 * It uses the embedded server at 127.0.0.1:7233 (starting it if none runs) and counts only the
 * processes of the tree it runs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureTemporalCli } from '../client/toolchain/toolchain';

const { values } = parseArgs({
  options: { tree: { type: 'string' }, commands: { type: 'string', default: '20' }, combos: { type: 'string', default: '10' }, stop: { type: 'boolean' } },
});
const tree = resolve(values.tree ?? join(__dirname, '..'));
const commands = Number(values.commands);
const combos = Number(values.combos);
const idleSeconds = Number(process.env.DEX_WORKFLOW_HOST_IDLE || 30);
const scratch = mkdtempSync(join(tmpdir(), 'dex-bg-hosts-'));
const tag = Date.now().toString(36);

function envOf(combo: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DEX_HOME: join(scratch, `home${combo}`), DEX_TASK_QUEUE: `bg-${tag}-${combo}`, DEX_WORKFLOW_HOST_IDLE: String(idleSeconds) };
  for (const name of ['TEMPORAL_ADDRESS', 'ANTHROPIC_API_KEY', 'DEX_CODEC_KEYS']) delete env[name];
  return env;
}

function dex(args: string[], combo: number): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [join(tree, 'bin', 'dex.js'), ...args], { env: envOf(combo), encoding: 'utf8', timeout: 180_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** This tree's dex processes (commands, hosts) and the embedded dev server, with their RSS. */
function snapshot(): { dex: { pid: number; rssMb: number; what: string }[]; serverMb: number } {
  const found: { pid: number; rssMb: number; what: string }[] = [];
  let serverMb = 0;
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      const rssMb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1] ?? 0) / 1024;
      const line = args.join(' ');
      if (line.includes(join(tree, 'bin', 'dex.js')) || line.includes(join(tree, 'client', 'server', 'shared-host.ts'))) {
        found.push({ pid: Number(name), rssMb, what: line.includes('shared-host.ts') ? 'workflow host' : args.slice(2, 4).join(' ') });
      } else if (args.includes('start-dev') && args[args.indexOf('--port') + 1] === '7233') serverMb = rssMb;
    } catch {
      // gone meanwhile
    }
  }
  return { dex: found, serverMb };
}

function report(when: string): number {
  const { dex: procs, serverMb } = snapshot();
  const total = procs.reduce((sum, p) => sum + p.rssMb, 0);
  console.log(`${when}: ${procs.length} dex process(es), ${total.toFixed(0)} MB RSS [${procs.map((p) => `${p.what} ${p.pid} ${p.rssMb.toFixed(0)} MB`).join('; ')}]; embedded server ${serverMb.toFixed(0)} MB`);
  return procs.length;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function main(): Promise<void> {
  console.log(`${commands} dex demo commands over ${combos} queues and homes, ${tree}, idle ${idleSeconds} s, scratch ${scratch}`);
  const runs: { id: string; combo: number }[] = [];
  const started = Date.now();
  for (let i = 0; i < commands; i++) {
    const combo = i % combos;
    const run = dex(['demo', '--json'], combo);
    const id = (JSON.parse(run.stdout || '{}') as { workflowId?: string }).workflowId;
    if (run.code !== 0 || !id) throw new Error(`dex demo ${i} exited ${run.code}: ${run.stderr.trim().split('\n').at(-1)}`);
    runs.push({ id, combo });
  }
  console.log(`${commands} demos done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  await sleep(10_000);
  report('10 s after the last command');
  // The host checks every min(60 s, idle/2) and leaves once idle for the idle time.
  const deadline = Date.now() + (idleSeconds + Math.min(60, idleSeconds / 2) + 15) * 1000;
  while (Date.now() < deadline && snapshot().dex.length > 0) await sleep(1_000);
  report(`after the idle time (${idleSeconds} s)`);
  const temporal = ensureTemporalCli();
  let status = 0;
  let metadata = 0;
  for (const { id, combo } of runs) {
    if (dex(['status', id], combo).code === 0) status++;
    try {
      execFileSync(temporal, ['workflow', 'metadata', '--workflow-id', id, '--address', '127.0.0.1:7233'], { stdio: 'pipe', timeout: 30_000 });
      metadata++;
    } catch {
      // not answered
    }
  }
  console.log(`dex status answered ${status}/${runs.length}; temporal workflow metadata answered ${metadata}/${runs.length}`);
  report('after every run was asked again');
  if (values.stop) {
    console.log(dex(['server', 'stop'], 0).stdout.trim());
    report('after dex server stop');
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});

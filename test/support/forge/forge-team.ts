// A team's forge set up for dex (docs/forge-triggers.md), for the dev-server tests: the fake GitHub with
// the repository's files on main, one real `dex worker` (the fleet) and the real `dex webhook`, both
// spawned with the forge's token and CA; GitHub's deliveries posted to the receiver as GitHub posts them.
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { signatureOf } from '../../../client/webhook/github-events';
import type { DexEnvironment } from '../env/dex-environment';
import { killDexWorkers, spawnDexWorker } from '../env/worker-process';
import { startFakeForge, type FakeCheck, type FakeForge } from './fake-forge';
import { spawnWebhook, type WebhookProcess } from './webhook-process';
import { completionTurn, toolTurn } from '../model/cassette-builder';

export interface ForgeTeam {
  forge: FakeForge;
  /** The environment the spawned commands run with (its DEX_HOME holds theirs). */
  cli: NodeJS.ProcessEnv;
  /** What the worker and the receiver logged. */
  log(): string;
  /** Posts `payload` as GitHub delivers `event`, signed with the webhook's secret. */
  deliver(event: string, payload: Record<string, unknown>): Promise<{ status: number; body: { said?: string; ignored?: string } }>;
  /** The `repository` of a delivery. */
  repository(): Record<string, unknown>;
}

/** `poll`: the receiver also polls the forge every second (`--poll`), as where no webhook reaches it. */
export function useForgeTeam(dex: DexEnvironment, opts: { token: string; secret: string; files: Record<string, string>; checks?: FakeCheck[]; poll?: boolean }): ForgeTeam {
  let forge: FakeForge | undefined;
  let webhook: WebhookProcess | undefined;
  let workerLog = '';
  let cli: NodeJS.ProcessEnv = {};

  beforeAll(async () => {
    forge = await startFakeForge({ token: opts.token, gitAuth: true, protection: null, checks: opts.checks ?? [{ name: 'test', command: 'node --test' }] });
    await forge.commit('main', opts.files);
    cli = { ...dex.cliEnv(), GITHUB_TOKEN: opts.token, DEX_FORGE_CA_FILE: forge.caFile, DEX_FORGE_API_URL: forge.secureApiUrl, NODE_OPTIONS: undefined };
    const worker = spawnDexWorker({ address: cli.TEMPORAL_ADDRESS!, dexHome: join(cli.DEX_HOME!, 'worker'), taskQueue: cli.DEX_TASK_QUEUE!, hostQueue: cli.DEX_HOST_QUEUE!, anthropicUrl: dex.fake.url, env: { GITHUB_TOKEN: opts.token } });
    worker.stderr!.setEncoding('utf8').on('data', (d: string) => (workerLog += d));
    const poll = opts.poll ? ['--poll', forge.remoteUrl, '--every', '1'] : [];
    webhook = await spawnWebhook({ ...cli, DEX_HOME: join(cli.DEX_HOME!, 'webhook'), DEX_WEBHOOK_SECRET: opts.secret, ANTHROPIC_API_KEY: 'test-key' }, poll);
  }, 120_000);

  afterAll(async () => {
    webhook?.process.kill('SIGTERM');
    killDexWorkers();
    await forge?.close();
  });

  const team: ForgeTeam = {
    get forge() {
      if (!forge) throw new Error('the forge is there from beforeAll on');
      return forge;
    },
    get cli() {
      return cli;
    },
    log: () => workerLog + (webhook?.log() ?? ''),
    repository: () => {
      const web = `${new URL(team.forge.remoteUrl).origin}/${team.forge.owner}/${team.forge.repo}`;
      return { name: team.forge.repo, full_name: `${team.forge.owner}/${team.forge.repo}`, html_url: web, owner: { login: team.forge.owner } };
    },
    async deliver(event, payload) {
      const body = JSON.stringify({ ...payload, repository: team.repository() });
      const headers = { 'Content-Type': 'application/json', 'X-GitHub-Event': event, 'X-GitHub-Delivery': crypto.randomUUID(), 'X-Hub-Signature-256': signatureOf(opts.secret, body) };
      const res = await fetch(webhook!.url, { method: 'POST', headers, body });
      return { status: res.status, body: (await res.json()) as { said?: string; ignored?: string } };
    },
  };
  return team;
}

/** The model's turns of a task that adds src/one.js exporting one(): what the forge teams' issues ask for. */
export const addOneTurns = (task: string) => [
  toolTurn(task, ['write_file', { path: 'src/one.js', content: 'exports.one = () => 1;\n' }]),
  completionTurn(task, { status: 'complete', summary: 'one returns 1' }),
];

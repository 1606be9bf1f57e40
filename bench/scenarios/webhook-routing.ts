/**
 * `npx tsx bench/scenarios/webhook-routing.ts [runs] [deliveries]`: what a CI delivery costs with many
 * roadmaps open (docs/landing-through-prs.md#webhooks, docs/performance.md#webhook-deliveries). On a dev
 * server, `runs` stand-in roadmap runs wait (1,000 by default); the fake GitHub has one open pull request
 * of dex's whose description names one of them. The same check_suite delivery is handed to `dex
 * webhook`'s signalling both ways: to every running roadmap (as before), and routed through the forge
 * to the run its pull request names; then a status delivery that names only the pull request's head
 * commit, routed by that commit's pull requests. Prints deliveries per second, signals per delivery
 * and the ratio, measured in this one run, and writes them to bench/results/webhook-routing-<time>.json.
 */
import { Worker } from '@temporalio/worker';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RUNNING_ROADMAPS, signalCiChange, signalRunningRoadmaps } from '../../client/webhook/ci-routing';
import type { CiEvent } from '../../client/webhook/github-events';
import { ciChangedSeenQuery } from '../../test/fixtures/ci-changed-workflows';
import { bundleFixture, quietRuntime, startDevServer } from '../../test/support/env/dev-server-env';
import { startFakeForge } from '../../test/support/forge/fake-forge';

const TOKEN = 'webhook-bench-token-0123456789';

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 1000);
  const deliveries = Number(process.argv[3] ?? 20);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  quietRuntime();
  const env = await startDevServer();
  const taskQueue = `webhook-bench-${process.pid}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: await bundleFixture('ci-changed-workflows.ts'), maxCachedWorkflows: runs + 100 });
  const running = worker.run();
  const forge = await startFakeForge({ token: TOKEN, repo: 'hello', gitAuth: true, protection: null });
  try {
    const target = `roadmap-bench-${Math.floor(runs / 2)}`;
    for (let i = 0; i < runs; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, runs - i) }, (_, k) => env.client.workflow.start('roadmapWorkflow', { taskQueue, workflowId: `roadmap-bench-${i + k}` })));
    }
    while ((await env.client.workflow.count(RUNNING_ROADMAPS)).count < runs) await new Promise((r) => setTimeout(r, 200));
    log(`${runs} roadmap runs open`);
    await forge.commit('main', { 'README.md': 'hello\n' });
    const head = await forge.commit('dex/t7', { 't7.txt': 't7\n' });
    await fetch(`${forge.apiUrl}/repos/octo/hello/pulls`, {
      method: 'POST', headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ head: 'dex/t7', base: 'main', title: 't7', body: `proposed by dex (landing ${target}/t7).` }),
    });
    const forgeEnv = { ...process.env, GITHUB_TOKEN: TOKEN, DEX_FORGE_CA_FILE: forge.caFile, DEX_FORGE_API_URL: forge.secureApiUrl };
    const event: CiEvent = { change: { owner: 'octo', repo: 'hello', branch: 'dex/t7', sha: 'a'.repeat(40) }, repositoryUrl: `${new URL(forge.remoteUrl).origin}/octo/hello`, what: 'check_suite completed' };
    const measure = async (how: string, deliver: () => Promise<number>) => {
      const started = Date.now();
      let signals = 0;
      for (let i = 0; i < deliveries; i++) signals += await deliver();
      const ms = Date.now() - started;
      log(`${how}: ${deliveries} deliveries in ${(ms / 1000).toFixed(1)} s, ${(signals / deliveries).toFixed(0)} signals each`);
      return { perSecond: Number(((deliveries * 1000) / ms).toFixed(2)), signalsEach: signals / deliveries };
    };
    const broadcast = await measure('to every running roadmap', () => signalRunningRoadmaps(env.client, event.change));
    const routed = await measure('routed through the forge', () => signalCiChange(env.client, event, forgeEnv));
    const status: CiEvent = { change: { owner: 'octo', repo: 'hello', sha: head }, repositoryUrl: event.repositoryUrl, what: 'status success' };
    const byCommit = await measure('a commit routed through the forge', () => signalCiChange(env.client, status, forgeEnv));
    const heard = (await env.client.workflow.getHandle(target).query(ciChangedSeenQuery)).length;
    const doc = { startedAt: new Date().toISOString(), runs, deliveries, broadcast, routed, byCommit, ratio: Number((routed.perSecond / broadcast.perSecond).toFixed(1)), targetHeard: heard };
    mkdirSync(join(__dirname, '..', 'results'), { recursive: true });
    writeFileSync(join(__dirname, '..', 'results', `webhook-routing-${doc.startedAt.replace(/[:.]/g, '-')}.json`), `${JSON.stringify(doc, null, 2)}\n`);
    process.stdout.write(`${runs} runs open: to every running roadmap ${broadcast.perSecond} deliveries/s (${broadcast.signalsEach} signals each), routed ${routed.perSecond}/s (${routed.signalsEach} each), ${doc.ratio}x, by commit ${byCommit.perSecond}/s (${byCommit.signalsEach} each); the named run heard ${heard} of ${3 * deliveries}\n`);
  } finally {
    worker.shutdown();
    await running;
    await forge.close();
    await env.teardown();
  }
}

main().catch((err: unknown) => {
  console.error(`webhook-routing: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});

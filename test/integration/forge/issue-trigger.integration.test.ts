/**
 * An issue labelled `dex` becomes a merged pull request that fixes it (docs/forge-triggers.md), as a team
 * would run it: the real `dex webhook` and a real `dex worker` (bin/dex.js, spawned) on a dev server,
 * the fake GitHub (a real bare repository over HTTPS, real checks) as the forge. GitHub's `issues`
 * delivery is posted to the receiver as GitHub posts it, signed; then twice more, as a redelivery would.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureOf } from '../../../client/webhook/github-events';
import { issueRunId } from '../../../core/forge/issue-run';
import type { RoadmapResult } from '../../../core/roadmap/roadmap-types';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { spawnDexWorker, killDexWorkers } from '../../support/env/worker-process';
import { allText } from '../../support/env/tree-text';
import { startFakeForge, type FakeForge } from '../../support/forge/fake-forge';
import { spawnWebhook } from '../../support/forge/webhook-process';

const TOKEN = 'issue-trigger-token-0123456789';
const SECRET = 'issue-trigger-webhook-secret';
const dex = useDexEnvironment({
  server: 'dev',
  cassette: [
    toolTurn('issue-101', ['write_file', { path: 'src/sum.js', content: 'exports.sum = (a, b) => a + b;\n' }]),
    completionTurn('issue-101', { status: 'complete', summary: 'sum adds its two numbers' }),
  ],
});
let forge: FakeForge;
let webhook: ChildProcess;
let url: string;
let log = '';
let webhookLog: () => string = () => '';

/** Posts GitHub's `issues` delivery of `action` (with `label`) for issue `number`, signed with the secret. */
async function deliverIssue(number: number, label: string): Promise<{ status: number; body: { said?: string } }> {
  const issue = forge.issues.issues.find((i) => i.number === number)!;
  const web = `${new URL(forge.remoteUrl).origin}/${forge.owner}/${forge.repo}`;
  const payload = {
    action: 'labeled', label: { name: label },
    issue: { number, title: issue.title, body: issue.body, html_url: `${web}/issues/${number}`, user: { login: issue.author }, labels: [{ name: label }] },
    repository: { name: forge.repo, full_name: `${forge.owner}/${forge.repo}`, html_url: web, owner: { login: forge.owner } },
    sender: { login: 'ana' },
  };
  const body = JSON.stringify(payload);
  const headers = { 'Content-Type': 'application/json', 'X-GitHub-Event': 'issues', 'X-GitHub-Delivery': crypto.randomUUID(), 'X-Hub-Signature-256': signatureOf(SECRET, body) };
  const res = await fetch(url, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as { said?: string } };
}

let cli: NodeJS.ProcessEnv;

beforeAll(async () => {
  forge = await startFakeForge({ token: TOKEN, gitAuth: true, protection: null, checks: [{ name: 'test', command: 'node --test' }] });
  await forge.commit('main', {
    'package.json': '{ "name": "issue-demo", "private": true }\n',
    'dex.config.yaml': 'verify: ["node --test"]\nsetup: false\n',
    'test/sum.test.js': "const test = require('node:test');\ntest('sum', () => require('node:assert').equal(require('../src/sum.js').sum(2, 3), 5));\n",
  });
  cli = { ...dex.cliEnv(), GITHUB_TOKEN: TOKEN, DEX_FORGE_CA_FILE: forge.caFile, DEX_FORGE_API_URL: forge.secureApiUrl, NODE_OPTIONS: undefined };
  // The fleet: one worker, as a team's machine would run it.
  const worker = spawnDexWorker({ address: cli.TEMPORAL_ADDRESS!, dexHome: join(cli.DEX_HOME!, 'worker'), taskQueue: cli.DEX_TASK_QUEUE!, hostQueue: cli.DEX_HOST_QUEUE!, anthropicUrl: dex.fake.url, env: { GITHUB_TOKEN: TOKEN } });
  worker.stderr!.setEncoding('utf8').on('data', (d: string) => (log += d));
  const started = await spawnWebhook({ ...cli, DEX_HOME: join(cli.DEX_HOME!, 'webhook'), DEX_WEBHOOK_SECRET: SECRET, ANTHROPIC_API_KEY: 'test-key' });
  webhook = started.process;
  url = started.url;
  webhookLog = started.log;
}, 120_000);

afterAll(async () => {
  webhook?.kill('SIGTERM');
  killDexWorkers();
  await forge?.close();
});

describe('an issue labelled dex, through dex webhook', () => {
  it('becomes a merged pull request that fixes it; the issue shows the run in one comment; a redelivery starts nothing', { timeout: 240_000 }, async () => {
    const issue = forge.issues.open('Add a sum function', 'src/sum.js should export sum(a, b), which test/sum.test.js checks.');
    // Another label starts nothing.
    expect((await deliverIssue(issue.number, 'bug')).body).toEqual({ ignored: 'issues' });
    const first = await deliverIssue(issue.number, 'dex');
    const workflowId = issueRunId(forge.owner, forge.repo, issue.number);
    expect(first.status, JSON.stringify(first.body) + webhookLog()).toBe(200);
    expect(first.body.said).toBe(`${forge.owner}/${forge.repo}#${issue.number}: started ${workflowId}`);
    // GitHub redelivers (a timeout on its side, a person's "Redeliver"): twice, nothing more starts.
    for (const _ of [1, 2]) expect((await deliverIssue(issue.number, 'dex')).body.said).toBe(`${forge.owner}/${forge.repo}#${issue.number}: ${workflowId} started before; nothing started`);

    const handle = dex.env.client.workflow.getHandle(workflowId);
    const result = (await handle.result()) as RoadmapResult;
    expect(result.tasks.map((t) => [t.id, t.state])).toEqual([['issue-101', 'completed']]);
    // One run of that id ever.
    const runs: unknown[] = [];
    for await (const run of dex.env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(run);
    expect(runs).toHaveLength(1);

    // One pull request, merged, whose description fixes the issue; the forge closed the issue with the merge.
    expect(forge.pulls).toHaveLength(1);
    const [pr] = forge.pulls;
    expect(pr).toMatchObject({ merged: true, head: 'dex/issue-101', title: 'issue-101: Add a sum function' });
    expect(pr.body).toContain(`Fixes #${issue.number}`);
    expect(issue.state).toBe('closed');
    expect(await forge.head('main')).toBe(pr.mergeSha);

    // dex's one comment on the issue, edited in place: working on it, then completed with the pull request's link.
    const comments = forge.issues.on(issue.number);
    expect(comments).toHaveLength(1);
    expect(comments[0].edits[0]).toContain('dex is working on this.');
    expect(comments[0].body).toContain(`**completed**: [#${pr.number}](`);
    expect(comments[0].body).toContain(workflowId);

    // The token and the webhook's secret are in no history, log or comment.
    const history = JSON.stringify(await handle.fetchHistory());
    for (const secret of [TOKEN, SECRET]) {
      expect(history.includes(secret)).toBe(false);
      expect(log.includes(secret) || webhookLog().includes(secret)).toBe(false);
      expect(comments[0].body.includes(secret)).toBe(false);
      expect(allText(cli.DEX_HOME!).includes(secret)).toBe(false);
    }
  });
});

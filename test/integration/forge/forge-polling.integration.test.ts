/**
 * `dex webhook --poll` (docs/forge-triggers.md#polling): with no delivery at all, the receiver asks the
 * fake GitHub every second and answers what it finds as it answers deliveries — an issue given the
 * label starts its run (once, whatever it sees again), a review of dex's pull request is revised, a
 * `/dex approve` comment passes the merge gate. The real `dex webhook` and `dex worker` (spawned) on a
 * dev server.
 */
import { describe, expect, it } from 'vitest';
import { issueRunId } from '../../../core/forge/issue-run';
import type { RoadmapResult } from '../../../core/roadmap/roadmap-types';
import { completionTurn, inPhase, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment, waitForGate } from '../../support/env/dex-environment';
import { addOneTurns, useForgeTeam } from '../../support/forge/forge-team';
import { webhook } from '../../support/forge/ci-webhook';

const dex = useDexEnvironment({
  server: 'dev',
  cassette: [
    ...addOneTurns('issue-101'),
    ...inPhase('revise', [
      toolTurn('issue-101', ['write_file', { path: 'src/one.js', content: '// one\nexports.one = () => 1;\n' }]),
      completionTurn('issue-101', { status: 'complete', summary: 'commented one' }),
    ]),
  ],
});
const team = useForgeTeam(dex, {
  token: 'forge-polling-token-0123456789',
  secret: 'forge-polling-webhook-secret',
  poll: true,
  files: {
    'package.json': '{ "name": "poll-demo", "private": true }\n',
    'dex.config.yaml': 'verify: ["node --test"]\nsetup: false\nland:\n  remote: origin\n  mode: pr\n  pr: { profile: review }\n',
    'test/ok.test.js': "require('node:test')('ok', () => {});\n",
  },
});

describe('dex webhook --poll', () => {
  it('finds a labelled issue, a review and a /dex approve on the forge with no delivery, and answers each once', { timeout: 300_000 }, async () => {
    const { forge } = team;
    forge.issues.roles.set('ana', 'write');
    const issue = forge.issues.open('Add one', 'src/one.js should export one().', ['dex']);
    forge.issues.open('Not for dex', 'A bug.', ['bug']);
    const workflowId = issueRunId(forge.owner, forge.repo, issue.number);
    const handle = dex.env.client.workflow.getHandle(workflowId);
    await expect.poll(() => handle.describe().then(() => true, () => false), { timeout: 60_000, interval: 500 }).toBe(true);
    const stop = webhook(forge, handle);
    try {
      await waitForGate(handle, 'merge', { timeoutMs: 120_000 });
      const pr = forge.pulls[0];
      const { comments } = forge.reviews.submit(pr.number, 'ana', { state: 'CHANGES_REQUESTED', comments: [{ path: 'src/one.js', line: 1, body: 'Say what it is.' }] });
      await expect.poll(() => forge.reviews.thread(comments[0].id).length, { timeout: 120_000, interval: 500 }).toBe(2);
      await waitForGate(handle, 'merge', { timeoutMs: 120_000 });
      forge.issues.comment(pr.number, 'ana', '/dex approve');
      const result = (await handle.result()) as RoadmapResult;
      expect(result.tasks.map((t) => [t.id, t.state])).toEqual([['issue-101', 'completed']]);
      expect(forge.pulls[0].merged).toBe(true);
    } finally {
      stop();
    }
    // One run, though every round saw the labelled issue again; none for the issue labelled bug.
    const runs = [];
    for await (const run of dex.env.client.workflow.list()) if (run.workflowId.startsWith('issue-')) runs.push(run.workflowId);
    expect(runs).toEqual([workflowId]);
    const log = team.log();
    expect(log).toContain(`issues labeled dex (polled): ${forge.owner}/${forge.repo}#${issue.number}: started ${workflowId}`);
    expect(log).toMatch(/pull_request_review submitted \(polled\): .*told issue-octo-demo-101 \(task issue-101\)/);
    expect(log).toMatch(/issue_comment created \(polled\): .*\/dex approve by ana: approved gate "merge"/);
    expect(log.match(/\/dex approve by ana/g)).toHaveLength(1);
  });
});

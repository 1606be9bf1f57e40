/**
 * An issue labelled `dex` becomes a merged pull request that fixes it (docs/forge-triggers.md), as a team
 * would run it: the real `dex webhook` and a real `dex worker` (bin/dex.js, spawned) on a dev server,
 * the fake GitHub (a real bare repository over HTTPS, real checks) as the forge. GitHub's `issues`
 * delivery is posted to the receiver as GitHub posts it, signed; then twice more, as a redelivery would.
 */
import { describe, expect, it } from 'vitest';
import { issueRunId } from '../../../core/forge/issue-run';
import type { RoadmapResult } from '../../../core/roadmap/roadmap-types';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { allText } from '../../support/env/tree-text';
import { useForgeTeam } from '../../support/forge/forge-team';
import { webhook } from '../../support/forge/ci-webhook';

const TOKEN = 'issue-trigger-token-0123456789';
const SECRET = 'issue-trigger-webhook-secret';
const dex = useDexEnvironment({
  server: 'dev',
  cassette: [
    toolTurn('issue-101', ['write_file', { path: 'src/sum.js', content: 'exports.sum = (a, b) => a + b;\n' }]),
    completionTurn('issue-101', { status: 'complete', summary: 'sum adds its two numbers' }),
    // Issue #102's roadmap: two tasks, B after A.
    toolTurn('issue-102-A', ['write_file', { path: 'src/one.js', content: 'exports.one = () => 1;\n' }]),
    completionTurn('issue-102-A', { status: 'complete', summary: 'one' }),
    toolTurn('issue-102-B', ['write_file', { path: 'src/two.js', content: 'exports.two = () => 2;\n' }]),
    completionTurn('issue-102-B', { status: 'complete', summary: 'two' }),
  ],
});
const team = useForgeTeam(dex, {
  token: TOKEN,
  secret: SECRET,
  files: {
    'package.json': '{ "name": "issue-demo", "private": true }\n',
    'dex.config.yaml': 'verify: ["node --test"]\nsetup: false\n',
    'test/sum.test.js': "const test = require('node:test');\ntest('sum', () => require('node:assert').equal(require('../src/sum.js').sum(2, 3), 5));\n",
  },
});

/** Posts GitHub's `issues labeled` delivery for issue `number` with `label`. */
function deliverIssue(number: number, label: string) {
  const { forge } = team;
  const issue = forge.issues.issues.find((i) => i.number === number)!;
  const url = `${team.repository().html_url as string}/issues/${number}`;
  return team.deliver('issues', { action: 'labeled', label: { name: label }, issue: { number, title: issue.title, body: issue.body, html_url: url, user: { login: issue.author } }, sender: { login: 'ana' } });
}

describe('an issue labelled dex, through dex webhook', () => {
  it('becomes a merged pull request that fixes it; the issue shows the run in one comment; a redelivery starts nothing', { timeout: 240_000 }, async () => {
    const { forge, cli } = team;
    const issue = forge.issues.open('Add a sum function', 'src/sum.js should export sum(a, b), which test/sum.test.js checks.');
    // Another label starts nothing.
    expect((await deliverIssue(issue.number, 'bug')).body).toEqual({ ignored: 'issues' });
    // The forge's first answer to the run (dex's comment) is a secondary rate limit: waited out, the run goes on.
    forge.failNext(1, 403, 'You have exceeded a secondary rate limit.', { 'retry-after': '3' });
    const first = await deliverIssue(issue.number, 'dex');
    const workflowId = issueRunId(forge.owner, forge.repo, issue.number);
    expect(first.status, JSON.stringify(first.body) + team.log()).toBe(200);
    expect(first.body.said).toBe(`${forge.owner}/${forge.repo}#${issue.number}: started ${workflowId}`);
    // GitHub redelivers (a timeout on its side, a person's "Redeliver"): twice, nothing more starts.
    for (const _ of [1, 2]) expect((await deliverIssue(issue.number, 'dex')).body.said).toBe(`${forge.owner}/${forge.repo}#${issue.number}: ${workflowId} started before; nothing started`);

    const handle = dex.env.client.workflow.getHandle(workflowId);
    const stop = webhook(forge, handle);
    const result = (await handle.result().finally(stop)) as RoadmapResult;
    expect(result.tasks.map((t) => [t.id, t.state])).toEqual([['issue-101', 'completed']]);
    // The comment's activity was refused once for the rate limit, and its second attempt came 3 s later.
    const events = (await handle.fetchHistory()).events ?? [];
    const commented = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'commentOnIssue');
    const started = events.find((e) => e.activityTaskStartedEventAttributes?.scheduledEventId?.toString() === commented?.eventId?.toString());
    expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(2);
    expect(started?.activityTaskStartedEventAttributes?.lastFailure?.message).toContain('a rate limit: the next attempt waits 3 s');
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
      expect(team.log().includes(secret)).toBe(false);
      expect(comments[0].body.includes(secret)).toBe(false);
      expect(allText(cli.DEX_HOME!).includes(secret)).toBe(false);
    }
  });

  it('that says /dex roadmap runs its task list as a roadmap: a pull request per task, each part of the issue, and dex closes the issue once all have landed', { timeout: 240_000 }, async () => {
    const { forge } = team;
    const body = 'Two steps.\n\n/dex roadmap\n- [ ] A: add one in src/one.js\n- [ ] B: add two in src/two.js (depends: A)\n';
    const issue = forge.issues.open('Numbers', body);
    const workflowId = issueRunId(forge.owner, forge.repo, issue.number);
    expect((await deliverIssue(issue.number, 'dex')).body.said).toBe(`${forge.owner}/${forge.repo}#${issue.number}: started ${workflowId}`);
    const handle = dex.env.client.workflow.getHandle(workflowId);
    const stop = webhook(forge, handle);
    const result = (await handle.result().finally(stop)) as RoadmapResult;
    expect(result.tasks.map((t) => [t.id, t.state])).toEqual([['issue-102-A', 'completed'], ['issue-102-B', 'completed']]);
    const prs = forge.pulls.filter((p) => p.head.startsWith('dex/issue-102-'));
    expect(prs.map((p) => [p.head, p.merged])).toEqual([['dex/issue-102-A', true], ['dex/issue-102-B', true]]);
    for (const p of prs) {
      expect(p.body).toContain(`Part of #${issue.number}`);
      expect(p.body).not.toContain('Fixes #');
    }
    expect(issue.state).toBe('closed');
    const [comment] = forge.issues.on(issue.number);
    expect(comment.body).toContain('**completed**');
    for (const p of prs) expect(comment.body).toContain(`[#${p.number}](`);
    expect(comment.body).toMatch(/- issue-102-B: completed, \[#\d+\]\(.*\) \(merged\)/);
    // A task list that is no roadmap starts nothing, and says why.
    const bad = forge.issues.open('Loop', '/dex roadmap\n- [ ] A: x (depends: B)\n- [ ] B: y (depends: A)\n');
    expect((await deliverIssue(bad.number, 'dex')).body.said).toMatch(new RegExp(`#${bad.number}: issue #${bad.number}'s roadmap: .*cycle.*; nothing started$`));
  });
});

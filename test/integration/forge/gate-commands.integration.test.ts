/**
 * `/dex approve` in a pull request's comments answers the run's `merge` gate (docs/forge-triggers.md#gates-from-the-forge);
 * from a person without write access it is refused with a reply. The real `dex webhook` and `dex worker`
 * (spawned) on a dev server, the fake GitHub as the forge, `land.pr.profile: review` so a green pull
 * request waits at `merge` for a person.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { issueRunId } from '../../../core/forge/issue-run';
import type { RoadmapResult } from '../../../core/roadmap/roadmap-types';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment, waitForGate } from '../../support/env/dex-environment';
import { addOneTurns, useForgeTeam } from '../../support/forge/forge-team';
import { webhook } from '../../support/forge/ci-webhook';

const dex = useDexEnvironment({
  server: 'dev',
  cassette: [
    ...addOneTurns('issue-101'),
    toolTurn('issue-102-c555', ['write_file', { path: 'src/two.js', content: 'exports.two = () => 2;\n' }]),
    completionTurn('issue-102-c555', { status: 'complete', summary: 'two returns 2' }),
  ],
});
const team = useForgeTeam(dex, {
  token: 'gate-commands-token-0123456789',
  secret: 'gate-commands-webhook-secret',
  files: {
    'package.json': '{ "name": "gate-demo", "private": true }\n',
    'dex.config.yaml': 'verify: ["node --test"]\nsetup: false\nland:\n  remote: origin\n  mode: pr\n  pr: { profile: review }\n',
    'test/ok.test.js': "require('node:test')('ok', () => {});\n",
  },
});

const stops: (() => void)[] = [];
afterAll(() => stops.forEach((stop) => stop()));

/** Posts GitHub's `issue_comment created` delivery of `body` by `author` on pull request `number`. */
function commentOnPull(number: number, author: string, body: string) {
  const pr = team.forge.pulls[number - 1];
  return team.deliver('issue_comment', { action: 'created', issue: { number, title: pr.title, body: pr.body, pull_request: { url: 'x' } }, comment: { id: 900 + team.forge.requests.length, body, user: { login: author, type: 'User' } } });
}

/** Posts GitHub's `issue_comment created` delivery of comment `id`, `body` by `author`, on issue `number`. */
function commentOnIssue(number: number, id: number, author: string, body: string) {
  const issue = team.forge.issues.issues.find((i) => i.number === number)!;
  return team.deliver('issue_comment', { action: 'created', issue: { number, title: issue.title, body: issue.body }, comment: { id, body, user: { login: author, type: 'User' } } });
}

describe('/dex approve on the pull request', () => {
  it('from a person without write access is refused with a reply; from one with it, it passes the merge gate and the pull request merges', { timeout: 240_000 }, async () => {
    const { forge } = team;
    forge.issues.roles.set('ana', 'write');
    const issue = forge.issues.open('Add one', 'src/one.js should export one().');
    const url = `${team.repository().html_url as string}/issues/${issue.number}`;
    const started = await team.deliver('issues', { action: 'labeled', label: { name: 'dex' }, issue: { number: issue.number, title: issue.title, body: issue.body, html_url: url } });
    expect(started.status, team.log()).toBe(200);
    const workflowId = issueRunId(forge.owner, forge.repo, issue.number);
    const handle = dex.env.client.workflow.getHandle(workflowId);
    // Each completed check signals the run, as the receiver does for GitHub's check_run deliveries.
    stops.push(webhook(forge, handle));
    await waitForGate(handle, 'merge', { timeoutMs: 120_000 });
    const pr = forge.pulls[0];

    // eve reads the repository: her /dex approve is refused in a reply, and the run still waits.
    const refused = await commentOnPull(pr.number, 'eve', 'Looks fine to me.\n/dex approve');
    expect(refused.body.said).toBe(`${forge.owner}/${forge.repo}#${pr.number}: /dex approve by eve (read): refused`);
    expect(forge.issues.on(pr.number).map((c) => c.body).filter((b) => b.startsWith('@'))).toEqual([`@eve: \`/dex approve\` needs write access to ${forge.owner}/${forge.repo} (you have read); nothing was done.`]);
    // dex's one comment on its pull request says what it waits for, the run and task, and the cost so far.
    const own = forge.issues.on(pr.number).find((c) => c.body.includes(`<!-- dex:state ${workflowId} -->`))!;
    expect(own.body).toContain('**dex is working on this**: green: waiting for you to approve the merge');
    expect(own.body).toContain(`- task \`issue-101\` of run \`${workflowId}\``);
    expect(own.body).toMatch(/- cost so far: \d+\.\d\d USD/);
    expect((await waitForGate(handle, 'merge')).waitingFor?.gate).toBe('merge');
    // A comment with no command does nothing.
    expect((await commentOnPull(pr.number, 'ana', 'Nice.')).body).toEqual({ ignored: 'issue_comment' });

    // ana may push: her /dex approve passes the gate of the task the pull request is of, and dex says so there.
    const approved = await commentOnPull(pr.number, 'ana', '/dex approve ship it');
    expect(approved.body.said).toBe(`${forge.owner}/${forge.repo}#${pr.number}: /dex approve by ana: approved gate "merge" of task issue-101 of ${workflowId}`);
    const result = (await handle.result()) as RoadmapResult;
    expect(result.tasks.map((t) => [t.id, t.state])).toEqual([['issue-101', 'completed']]);
    expect(forge.pulls[0].merged).toBe(true);
    expect(forge.issues.on(pr.number).at(-1)?.body).toBe(`@ana: approved gate "merge" of task issue-101 of ${workflowId}.`);
    // One comment of dex's on the pull request, edited in place to its end.
    const states = forge.issues.on(pr.number).filter((c) => c.body.includes('<!-- dex:state '));
    expect(states).toHaveLength(1);
    expect(states[0].body).toContain('**dex: done**: merged');
    expect(states[0].edits.length).toBeGreaterThan(0);
    // Approving again, with nothing waiting, is answered, not an error.
    const late = await commentOnPull(pr.number, 'ana', '/dex approve');
    expect(late.body.said).toMatch(/: \/dex approve by ana: nothing done: /);
  });

  it('@dex <request> in an issue comment starts a run of the request, once; from a person without write access it does not', { timeout: 240_000 }, async () => {
    const { forge } = team;
    const issue = forge.issues.open('Numbers', 'We need more numbers.');
    const refused = await commentOnIssue(issue.number, 554, 'eve', '@dex add two');
    expect(refused.body.said).toBe(`${forge.owner}/${forge.repo}#${issue.number}: @dex by eve (read): refused`);
    const asked = await commentOnIssue(issue.number, 555, 'ana', 'Could you?\n@dex add src/two.js exporting two()');
    const workflowId = `${issueRunId(forge.owner, forge.repo, issue.number)}-c555`;
    expect(asked.body.said).toBe(`${forge.owner}/${forge.repo}#${issue.number}: started ${workflowId}`);
    // The same comment delivered again starts nothing.
    expect((await commentOnIssue(issue.number, 555, 'ana', 'Could you?\n@dex add src/two.js exporting two()')).body.said).toBe(`${forge.owner}/${forge.repo}#${issue.number}: ${workflowId} started before; nothing started`);
    const replies = forge.issues.on(issue.number).filter((c) => c.body.startsWith('@'));
    expect(replies.map((c) => c.body)).toEqual([
      `@eve: \`@dex\` needs write access to ${forge.owner}/${forge.repo} (you have read); nothing was done.`,
      `@ana: on it: started ${workflowId}.`,
      `@ana: ${workflowId} started before; nothing started.`,
    ]);
    const handle = dex.env.client.workflow.getHandle(workflowId);
    // Each completed check signals the run, as the receiver does for GitHub's check_run deliveries.
    stops.push(webhook(forge, handle));
    await waitForGate(handle, 'merge', { timeoutMs: 120_000 });
    const pr = forge.pulls.find((p) => p.head === 'dex/issue-102-c555')!;
    expect(pr.title).toBe('issue-102-c555: add src/two.js exporting two()');
    await commentOnPull(pr.number, 'ana', '/dex approve');
    expect(((await handle.result()) as RoadmapResult).tasks.map((t) => t.state)).toEqual(['completed']);
    expect(forge.pulls.find((p) => p.number === pr.number)!.merged).toBe(true);
  });
});

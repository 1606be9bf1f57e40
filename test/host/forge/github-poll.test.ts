import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ForgeTarget } from '../../../core/roadmap/pull-request-types';
import { githubForge } from '../../../host/forge/github-forge';
import { upsertGithubIssueComment } from '../../../host/forge/github-issues';
import { commentsSince, labelledIssues, reviewsSince } from '../../../host/forge/github-poll';
import { startFakeForge, type FakeForge } from '../../support/forge/fake-forge';

// What `dex webhook --poll` reads of GitHub each round (host/forge/github-poll.ts), against the fake
// forge's issues, comments and reviews, which answer as GitHub's REST API does. `since` is the time
// of the last thing made before it: the fake stamps each thing later than the one before.
const TOKEN_ENV = 'FAKE_FORGE_CRED';
const TOKEN = 'forge-token-0123456789-abcdef';
const env = { [TOKEN_ENV]: TOKEN };

describe('what polling reads of GitHub, against the fake forge', () => {
  let forge: FakeForge;
  let target: ForgeTarget;

  const requestsTo = (method: string, path: RegExp) => forge.requests.filter((r) => r.method === method && path.test(r.url)).length;
  const open = async (head: string, title: string, body: string) => {
    await forge.commit(head, { [`${title}.txt`]: `${title}\n` });
    return (await githubForge(target, env)).createPullRequest({ head, base: 'main', title, body });
  };

  beforeEach(async () => {
    forge = await startFakeForge({ token: TOKEN });
    target = { forge: 'github', apiUrl: forge.apiUrl, tokenEnv: TOKEN_ENV, owner: forge.owner, repo: forge.repo };
  });
  afterEach(() => forge.close());

  it('lists the open issues with the label in any case, oldest first: no pull request, no other label, no closed one', async () => {
    await open('dex/t1', 'T1', 'a pull request');
    const first = forge.issues.open('Add a flag', 'Please.', ['Dex']);
    forge.issues.open('Crash', 'It fell over.', ['bug']);
    const second = forge.issues.open('Fix the docs', '', ['bug', 'dex']);
    forge.issues.open('Done already', 'Yes.', ['dex']).state = 'closed';

    const web = forge.remoteUrl.replace(/\.git$/, '');
    expect(await labelledIssues(target, 'DEX', env)).toEqual([
      { number: first.number, title: 'Add a flag', body: 'Please.', url: `${web}/issues/${first.number}` },
      { number: second.number, title: 'Fix the docs', body: '', url: `${web}/issues/${second.number}` },
    ]);
    expect(await labelledIssues(target, 'wontfix', env)).toEqual([]);
  });

  it('lists the comments made since a time, oldest first, each with its issue or pull request (read once) and a bot marked', async () => {
    const pr = await open('dex/t1', 'T1', 'proposed by dex (landing roadmap-1/t1).');
    const issue = forge.issues.open('Add a flag', 'Please.', ['dex']);
    const marker = '<!-- dex:state -->';
    await upsertGithubIssueComment(target, issue.number, marker, `working ${marker}`, env);
    const since = forge.issues.comment(issue.number, 'ana', '@dex go').createdAt;

    const onPull = forge.issues.comment(pr.number, 'bob', '@dex also the README');
    const byBot = forge.issues.comment(issue.number, 'dependabot[bot]', 'Bumped.');
    // dex's state comment edited since: GitHub lists it (its `since` is of updates), yet it is no new comment.
    await upsertGithubIssueComment(target, issue.number, marker, `done ${marker}`, env);
    const again = forge.issues.comment(pr.number, 'ana', '/dex approve');

    const onThePull = { number: pr.number, isPull: true, title: 'T1', description: 'proposed by dex (landing roadmap-1/t1).' };
    expect(await commentsSince(target, since, env)).toEqual([
      { id: onPull.id, ...onThePull, author: 'bob', bot: false, body: '@dex also the README', createdAt: onPull.createdAt },
      { id: byBot.id, number: issue.number, isPull: false, title: 'Add a flag', description: 'Please.', author: 'dependabot[bot]', bot: true, body: 'Bumped.', createdAt: byBot.createdAt },
      { id: again.id, ...onThePull, author: 'ana', bot: false, body: '/dex approve', createdAt: again.createdAt },
    ]);
    expect(requestsTo('GET', new RegExp(`/issues/${pr.number}$`))).toBe(1);
    expect(requestsTo('GET', new RegExp(`/issues/${issue.number}$`))).toBe(1);
    expect(await commentsSince(target, again.createdAt, env)).toEqual([]);
  });

  it('reads comments past a page of the API, the time asked kept on every page', async () => {
    const issue = forge.issues.open('Busy', '', []);
    const since = forge.issues.comment(issue.number, 'ana', 'before').createdAt;
    const bodies = Array.from({ length: 120 }, (_, i) => forge.issues.comment(issue.number, 'bob', `comment ${i}`).body);

    expect((await commentsSince(target, since, env)).map((c) => c.body)).toEqual(bodies);
    expect(requestsTo('GET', /\/issues\/comments\?(?=.*since=)(?=.*[?&]page=2\b)/)).toBe(1);
  });

  it("lists the reviews submitted since a time on the open pull requests, oldest first across them; a closed one's not", async () => {
    const one = await open('dex/t1', 'T1', 'landing of t1');
    const two = await open('dex/t2', 'T2', 'landing of t2');
    const shut = await open('dex/t3', 'T3', 'landing of t3');
    const since = forge.reviews.submit(one.number, 'ana', { state: 'COMMENTED', body: 'early' }).review.submittedAt;

    const first = forge.reviews.submit(one.number, 'ana', { state: 'CHANGES_REQUESTED', body: 'Nearly.' }).review;
    forge.reviews.submit(shut.number, 'ana', { state: 'APPROVED' });
    forge.pulls[shut.number - 1].state = 'closed';
    const byBot = forge.reviews.submit(two.number, 'lint[bot]', { state: 'COMMENTED' }).review;
    const last = forge.reviews.submit(one.number, 'bob', { state: 'APPROVED' }).review;

    expect(await reviewsSince(target, since, env)).toEqual([
      { pr: one.number, description: 'landing of t1', reviewId: first.id, state: 'changes_requested', author: 'ana', bot: false, submittedAt: first.submittedAt },
      { pr: two.number, description: 'landing of t2', reviewId: byBot.id, state: 'commented', author: 'lint[bot]', bot: true, submittedAt: byBot.submittedAt },
      { pr: one.number, description: 'landing of t1', reviewId: last.id, state: 'approved', author: 'bob', bot: false, submittedAt: last.submittedAt },
    ]);
    expect(requestsTo('GET', new RegExp(`/pulls/${shut.number}/reviews`))).toBe(0);
  });
});

import { ApplicationFailure } from '@temporalio/common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAILURE } from '../../../core/run/failure-types';
import type { ForgeTarget } from '../../../core/roadmap/pull-request-types';
import { githubForge } from '../../../host/forge/github-forge';
import { githubLogin, readGithubReview, replyInGithubThread } from '../../../host/forge/github-reviews';
import { startFakeForge, type FakeForge } from '../../support/forge/fake-forge';

// Reviews on dex's pull request, read and answered (host/forge/github-reviews.ts) against the fake
// forge's reviews (test/support/forge/fake-forge-reviews.ts), which answer as GitHub's REST API does.
const TOKEN_ENV = 'FAKE_FORGE_CRED';
const TOKEN = 'forge-token-0123456789-abcdef';
const env = { [TOKEN_ENV]: TOKEN };

describe('reviews on GitHub, against the fake forge', () => {
  let forge: FakeForge;
  let target: ForgeTarget;

  const failureOf = (promise: Promise<unknown>) => promise.then(() => undefined, (err: unknown) => err as ApplicationFailure);
  const requestsTo = (method: string, path: RegExp) => forge.requests.filter((r) => r.method === method && path.test(r.url)).length;

  beforeEach(async () => {
    forge = await startFakeForge({ token: TOKEN });
    target = { forge: 'github', apiUrl: forge.apiUrl, tokenEnv: TOKEN_ENV, owner: forge.owner, repo: forge.repo };
    await forge.commit('dex/T1', { 'a.ts': 'a\n', 'b.ts': 'b\n' });
    await (await githubForge(target, env)).createPullRequest({ head: 'dex/T1', base: 'main', title: 'T1', body: '' });
  });
  afterEach(() => forge.close());

  it('reads a review: its verdict, and each comment with its thread, file, line and what the thread said before it', async () => {
    const first = forge.reviews.submit(1, 'ana', { state: 'COMMENTED', comments: [{ path: 'a.ts', line: 3, body: 'why a loop?' }] });
    const opened = first.comments[0];
    const asked = forge.reviews.submit(1, 'dex-bot', { state: 'COMMENTED', comments: [{ inReplyTo: opened.id, body: 'which loop?' }] }).comments[0];
    const { review, comments } = forge.reviews.submit(1, 'ana', {
      state: 'CHANGES_REQUESTED',
      body: 'Nearly.',
      comments: [{ inReplyTo: asked.id, body: 'the one in parse' }, { path: 'a.ts', line: 10, body: 'rename x' }, { path: 'b.ts', line: 2, body: 'drop this' }],
    });
    // Said after the review: not part of what it answers.
    forge.reviews.submit(1, 'bob', { state: 'COMMENTED', comments: [{ inReplyTo: opened.id, body: 'agreed' }] });

    expect(comments[0].inReplyTo).toBe(opened.id);
    expect(await readGithubReview(target, 1, review.id, env)).toEqual({
      id: review.id,
      author: 'ana',
      state: 'changes_requested',
      body: 'Nearly.',
      comments: [
        {
          id: comments[0].id, thread: opened.id, path: 'a.ts', line: 3, author: 'ana', body: 'the one in parse',
          before: [{ author: 'ana', body: 'why a loop?' }, { author: 'dex-bot', body: 'which loop?' }],
        },
        { id: comments[1].id, thread: comments[1].id, path: 'a.ts', line: 10, author: 'ana', body: 'rename x', before: [] },
        { id: comments[2].id, thread: comments[2].id, path: 'b.ts', line: 2, author: 'ana', body: 'drop this', before: [] },
      ],
    });
    expect(await readGithubReview(target, 1, first.review.id, env)).toMatchObject({ state: 'commented', comments: [{ id: opened.id, before: [] }] });
  });

  it('reads a thread longer than a page of the API: every comment, every earlier word', async () => {
    const opened = forge.reviews.submit(1, 'ana', { state: 'COMMENTED', comments: [{ path: 'a.ts', line: 1, body: 'reply 0' }] }).comments[0];
    const replies = Array.from({ length: 120 }, (_, i) => ({ inReplyTo: opened.id, body: `reply ${i + 1}` }));
    const { review } = forge.reviews.submit(1, 'ana', { state: 'COMMENTED', comments: replies });

    const read = await readGithubReview(target, 1, review.id, env);
    expect(read.comments.map((c) => c.body)).toEqual(replies.map((r) => r.body));
    expect(read.comments.at(-1)?.before.map((e) => e.body)).toEqual(['reply 0', ...replies.slice(0, -1).map((r) => r.body)]);
    expect(requestsTo('GET', /\/pulls\/1\/comments\?.*page=2/)).toBe(1);
  });

  it('replies in a thread once: the reply joins the thread by dex, and a retry with the same marker posts nothing', async () => {
    const { comments } = forge.reviews.submit(1, 'ana', { state: 'CHANGES_REQUESTED', comments: [{ path: 'a.ts', line: 3, body: 'why?' }, { path: 'b.ts', line: 1, body: 'and this?' }] });
    const thread = comments[0].id;
    const marker = `<!-- dex:reply run/T1/1/${thread} -->`;

    const url = await replyInGithubThread(target, 1, thread, `Because.\n\n${marker}`, marker, env);
    const reply = forge.reviews.thread(thread).at(-1)!;
    expect(reply).toMatchObject({ inReplyTo: thread, author: 'dex-bot', body: `Because.\n\n${marker}`, path: 'a.ts', line: 3 });
    expect(url).toBe(`${forge.remoteUrl.replace(/\.git$/, '')}/pull/1#discussion_r${reply.id}`);
    // GitHub records a reply on its own as a review by its author.
    expect(await readGithubReview(target, 1, forge.reviews.reviews.at(-1)!.id, env)).toMatchObject({ author: 'dex-bot', state: 'commented', comments: [{ id: reply.id, thread }] });

    expect(await replyInGithubThread(target, 1, thread, `Because.\n\n${marker}`, marker, env)).toBe(url);
    expect(requestsTo('POST', /\/replies$/)).toBe(1);
    // The marker in one thread says nothing of another.
    await replyInGithubThread(target, 1, comments[1].id, `Dropped.\n\n${marker}`, marker, env);
    expect(requestsTo('POST', /\/replies$/)).toBe(2);
    expect(forge.reviews.thread(comments[1].id).map((c) => c.author)).toEqual(['ana', 'dex-bot']);
  });

  it('answers a reply deeper in a thread in the thread itself, as GitHub does', async () => {
    const opened = forge.reviews.submit(1, 'ana', { state: 'COMMENTED', comments: [{ path: 'a.ts', line: 3, body: 'why?' }] }).comments[0];
    const asked = forge.reviews.submit(1, 'bob', { state: 'COMMENTED', comments: [{ inReplyTo: opened.id, body: 'yes, why?' }] }).comments[0];
    await replyInGithubThread(target, 1, asked.id, 'Because. <!-- m -->', '<!-- m -->', env);
    expect(forge.reviews.thread(opened.id).map((c) => [c.author, c.inReplyTo])).toEqual([['ana', undefined], ['bob', opened.id], ['dex-bot', opened.id]]);
  });

  it('names the token\'s own login, asking the forge once', async () => {
    expect(await githubLogin(target, env)).toBe('dex-bot');
    expect(await githubLogin(target, env)).toBe('dex-bot');
    expect(requestsTo('GET', /\/api\/v3\/user$/)).toBe(1);
  });

  it('fails as the forge failures do: a review or a comment that does not exist is not found, an empty reply refused', async () => {
    const missing = await failureOf(readGithubReview(target, 1, 5_999_999, env));
    expect(missing).toBeInstanceOf(ApplicationFailure);
    expect(missing).toMatchObject({ type: FAILURE.ForgeNotFound, nonRetryable: true });
    expect(missing?.message).not.toContain(TOKEN);
    expect(await failureOf(replyInGithubThread(target, 1, 6_999_999, 'hi <!-- m -->', '<!-- m -->', env))).toMatchObject({ type: FAILURE.ForgeNotFound });
    const opened = forge.reviews.submit(1, 'ana', { state: 'COMMENTED', comments: [{ path: 'a.ts', line: 3, body: 'why?' }] }).comments[0];
    expect(await failureOf(replyInGithubThread(target, 1, opened.id, ' ', '<!-- m -->', env))).toMatchObject({ type: FAILURE.ForgeRequestRefused, nonRetryable: true });
    expect(await failureOf(readGithubReview(target, 2, 5_000_001, env))).toMatchObject({ type: FAILURE.ForgeNotFound });
  });
});

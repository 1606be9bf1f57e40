// A review on dex's pull request, read and answered on GitHub (docs/forge-triggers.md#reviews-answered-on-the-same-pr):
// the review and its line comments, each with the thread it belongs to and what the thread said
// before it, and dex's reply in a thread, found by a marker only dex writes so a retried activity
// does not post it twice.

import type { Review, ReviewComment, ReviewState, ThreadEntry } from '../../core/forge/review';
import type { ForgeTarget } from '../../core/roadmap/pull-request-types';
import { githubClient } from './github-forge';

/** A review comment as GitHub's API gives it, trimmed to what dex reads. */
type ApiComment = {
  id: number | bigint;
  in_reply_to_id?: number;
  path?: string;
  line?: number | null;
  original_line?: number | null;
  body: string;
  user: { login: string } | null;
  created_at: string;
  html_url: string;
};

/** The verdicts dex reads of a review, as GitHub's states lower-cased (its PENDING and DISMISSED are none of them). */
export const REVIEW_STATES: readonly ReviewState[] = ['approved', 'changes_requested', 'commented'];

/** The thread a comment belongs to: GitHub's `in_reply_to_id` is the thread's first comment. */
const threadOf = (c: ApiComment): number => Number(c.in_reply_to_id ?? c.id);

/** Who wrote a comment or review: a deleted account's stay, by GitHub's `ghost`. */
export const authorOf = (c: { user: { login: string } | null }): string => c.user?.login ?? 'ghost';

/** Oldest first: by creation time, then by id (GitHub's times have whole seconds, its ids grow). */
const oldestFirst = (a: ApiComment, b: ApiComment): number => Date.parse(a.created_at) - Date.parse(b.created_at) || Number(a.id) - Number(b.id);

type GithubClient = Awaited<ReturnType<typeof githubClient>>;

/** Every review comment of pull request `pr`, oldest first. */
async function pullComments({ octokit, call }: GithubClient, { owner, repo }: ForgeTarget, pr: number): Promise<ApiComment[]> {
  const all = await call(`read the review comments of #${pr}`, () =>
    octokit.paginate(octokit.rest.pulls.listReviewComments, { owner, repo, pull_number: pr, sort: 'created', direction: 'asc', per_page: 100 }),
  );
  return [...all].sort(oldestFirst);
}

/** Review `reviewId` on pull request `pr`: its verdict, text and comments, each with its thread, file, line and the thread before it. */
export async function readGithubReview(target: ForgeTarget, pr: number, reviewId: number, env: NodeJS.ProcessEnv = process.env): Promise<Review> {
  const client = await githubClient(target, env);
  const { octokit, call } = client;
  const { owner, repo } = target;
  const { data: review } = await call(`read review ${reviewId} of #${pr}`, () => octokit.rest.pulls.getReview({ owner, repo, pull_number: pr, review_id: reviewId }));
  const own = await call(`read the comments of review ${reviewId} of #${pr}`, () =>
    octokit.paginate(octokit.rest.pulls.listCommentsForReview, { owner, repo, pull_number: pr, review_id: reviewId, per_page: 100 }),
  );
  const all = await pullComments(client, target, pr);
  const comments = [...own].sort(oldestFirst).map((c): ReviewComment => {
    const thread = threadOf(c);
    const line = c.line ?? c.original_line;
    const before: ThreadEntry[] = all.filter((o) => threadOf(o) === thread && oldestFirst(o, c) < 0).map((o) => ({ author: authorOf(o), body: o.body }));
    return { id: Number(c.id), thread, ...(c.path ? { path: c.path } : {}), ...(line ? { line } : {}), author: authorOf(c), body: c.body, before };
  });
  const state = review.state.toLowerCase() as ReviewState;
  // A review dismissed (or still pending) since the webhook spoke: its comments still stand, as remarks.
  return { id: Number(review.id), author: authorOf(review), state: REVIEW_STATES.includes(state) ? state : 'commented', body: review.body ?? '', comments };
}

/** Replies `body` (which holds `marker`) in review thread `thread` of pull request `pr`, unless a comment there holds `marker` already; returns the reply's URL. */
export async function replyInGithubThread(target: ForgeTarget, pr: number, thread: number, body: string, marker: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const client = await githubClient(target, env);
  const posted = (await pullComments(client, target, pr)).find((c) => threadOf(c) === thread && c.body.includes(marker));
  if (posted) return posted.html_url;
  const { octokit, call } = client;
  const { data } = await call(`reply in review thread ${thread} of #${pr}`, () =>
    octokit.rest.pulls.createReplyForReviewComment({ owner: target.owner, repo: target.repo, pull_number: pr, comment_id: thread, body }),
  );
  return data.html_url;
}

/** Logins by forge API and token: a token's user does not change while the worker runs. */
const logins = new Map<string, string>();

/** The login of `target`'s token (whose reviews are dex's own), read once per forge and token in this process. */
export async function githubLogin(target: ForgeTarget, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const { octokit, call, token } = await githubClient(target, env);
  const key = `${target.apiUrl ?? ''}\n${token}`;
  const known = logins.get(key);
  if (known) return known;
  const { data } = await call('read the token\'s user', () => octokit.rest.users.getAuthenticated());
  logins.set(key, data.login);
  return data.login;
}

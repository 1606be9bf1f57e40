// The fake forge's pull-request reviews and their line comments (test/support/forge/fake-forge.ts), as
// GitHub's REST API answers them: a person submits a review on the forge's page (`submit`); the API
// reads a review, lists a pull request's reviews, a review's comments and every review comment of a
// pull request (paged, with GitHub's `link` header), and posts a reply in a thread. As on GitHub, a reply's `in_reply_to_id` is the
// thread's first comment however deep it answers, and a reply posted through the API is recorded as
// a review of its own (COMMENTED). Ids start apart from issue comments (7_000_001) and statuses
// (9_000_001), so a test that mixes them up fails.
//
//   const { review, comments } = forge.reviews.submit(1, 'ana', { state: 'CHANGES_REQUESTED', comments: [{ path: 'a.ts', line: 3, body: 'why?' }] });
//   forge.reviews.thread(comments[0].id);  // the thread, oldest first

import type { RestEndpointMethodTypes } from '@octokit/rest';
import { fakeUser, notFound, pageOf, stampNow, type ApiAnswer, type FakeRepoAt, type Served } from './fake-forge-rest';

type Api = RestEndpointMethodTypes;

/** A review's verdict, as GitHub's API spells it. */
export type FakeReviewState = 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED';

export interface FakeReview {
  id: number;
  pr: number;
  author: string;
  state: FakeReviewState;
  body: string;
  submittedAt: string;
}

export interface FakeReviewComment {
  id: number;
  pr: number;
  /** The review it was submitted with. */
  review: number;
  /** The thread's first comment; absent on that first comment itself. */
  inReplyTo?: number;
  path?: string;
  line?: number;
  body: string;
  author: string;
  createdAt: string;
}

/** One comment of a review a person submits: on a line of a file, or (`inReplyTo`, a comment's id) in that comment's thread. */
export interface FakeReviewDraft {
  path?: string;
  line?: number;
  body: string;
  inReplyTo?: number;
}

/** The reviews and review comments of one fake forge, and the API routes that serve them. */
export class FakeReviews {
  readonly reviews: FakeReview[] = [];
  readonly comments: FakeReviewComment[] = [];

  constructor(private readonly at: FakeRepoAt) {}

  /** Submits a review on pull request `pr`, as `author` would on the forge's page: the review and its comments, with their ids. */
  submit(pr: number, author: string, review: { state: FakeReviewState; body?: string; comments?: FakeReviewDraft[] }): { review: FakeReview; comments: FakeReviewComment[] } {
    if (!this.at.isPull(pr)) throw new Error(`fake forge: no pull request #${pr} to review`);
    const made = this.record(pr, author, review.state, review.body ?? '');
    const comments = (review.comments ?? []).map((draft) => {
      if (draft.inReplyTo === undefined) return this.add(made, draft.body, draft);
      const to = this.comments.find((c) => c.id === draft.inReplyTo && c.pr === pr);
      if (!to) throw new Error(`fake forge: no review comment ${draft.inReplyTo} on #${pr} to reply to`);
      return this.add(made, draft.body, to);
    });
    return { review: made, comments };
  }

  /** Every review comment of pull request `pr`, oldest first. */
  on(pr: number): FakeReviewComment[] {
    return this.comments.filter((c) => c.pr === pr);
  }

  /** The thread comment `id` belongs to, oldest first. */
  thread(id: number): FakeReviewComment[] {
    const comment = this.comments.find((c) => c.id === id);
    const root = comment?.inReplyTo ?? comment?.id;
    return this.comments.filter((c) => (c.inReplyTo ?? c.id) === root);
  }

  /** The token's user, as `GET /user` answers. */
  authenticated() {
    return fakeUser(this.at.tokenUser) satisfies Served<Api['users']['getAuthenticated']['response']['data']>;
  }

  /** The answer to `method rest` (the path after /repos/OWNER/REPO), or undefined for a path not about reviews. */
  route(method: string, rest: string, query: URLSearchParams, body: Record<string, unknown>): ApiAnswer | undefined {
    const about = /^\/pulls\/(\d+)\/(reviews(?:\/\d+(?:\/comments)?)?|comments(?:\/\d+\/replies)?)$/.exec(rest);
    if (!about) return undefined;
    const pr = Number(about[1]);
    if (!this.at.isPull(pr)) return notFound();
    let m: RegExpExecArray | null;
    if (method === 'GET' && about[2] === 'reviews') return this.page(rest, query, this.reviews.filter((r) => r.pr === pr).map((r) => this.reviewJson(r)));
    if (method === 'GET' && (m = /^reviews\/(\d+)$/.exec(about[2]))) {
      const review = this.reviews.find((r) => r.id === Number(m![1]) && r.pr === pr);
      return review ? { status: 200, body: this.reviewJson(review) } : notFound();
    }
    if (method === 'GET' && (m = /^reviews\/(\d+)\/comments$/.exec(about[2]))) {
      const review = this.reviews.find((r) => r.id === Number(m![1]) && r.pr === pr);
      return review ? this.page(rest, query, this.on(pr).filter((c) => c.review === review.id).map((c) => this.commentJson(c))) : notFound();
    }
    if (method === 'GET' && about[2] === 'comments') return this.page(rest, query, this.on(pr).map((c) => this.commentJson(c)));
    if (method === 'POST' && (m = /^comments\/(\d+)\/replies$/.exec(about[2]))) {
      const to = this.comments.find((c) => c.id === Number(m![1]) && c.pr === pr);
      if (!to) return notFound();
      if (typeof body.body !== 'string' || !body.body.trim()) {
        return { status: 422, body: { message: 'Validation Failed', errors: [{ resource: 'PullRequestReviewComment', field: 'body', code: 'missing_field' }] } };
      }
      return { status: 201, body: this.commentJson(this.add(this.record(pr, this.at.tokenUser, 'COMMENTED', ''), body.body, to)) };
    }
    return undefined;
  }

  private record(pr: number, author: string, state: FakeReviewState, body: string): FakeReview {
    const review: FakeReview = { id: 5_000_001 + this.reviews.length, pr, author, state, body, submittedAt: stampNow() };
    this.reviews.push(review);
    return review;
  }

  /** A comment of `review`: on `where`'s file and line, or, when `where` is a comment, in its thread (on the thread's file and line). */
  private add(review: FakeReview, body: string, where: FakeReviewDraft | FakeReviewComment): FakeReviewComment {
    const root = 'id' in where ? this.comments.find((c) => c.id === (where.inReplyTo ?? where.id)) : undefined;
    const comment: FakeReviewComment = {
      id: 6_000_001 + this.comments.length, pr: review.pr, review: review.id, ...(root ? { inReplyTo: root.id } : {}),
      path: (root ?? where).path, line: (root ?? where).line, body, author: review.author, createdAt: stampNow(),
    };
    this.comments.push(comment);
    return comment;
  }

  /** One page of a list at `rest`, as the request asks. */
  private page(rest: string, query: URLSearchParams, items: unknown[]): ApiAnswer {
    return pageOf(`${this.at.api}${rest}`, query, items);
  }

  private reviewJson(r: FakeReview) {
    return {
      id: r.id, state: r.state, body: r.body, user: fakeUser(r.author), submitted_at: r.submittedAt,
      html_url: `${this.at.web}/pull/${r.pr}#pullrequestreview-${r.id}`, pull_request_url: `${this.at.api}/pulls/${r.pr}`,
    } satisfies Served<Api['pulls']['getReview']['response']['data']>;
  }

  private commentJson(c: FakeReviewComment) {
    return {
      id: c.id, pull_request_review_id: c.review, ...(c.inReplyTo !== undefined ? { in_reply_to_id: c.inReplyTo } : {}),
      path: c.path, line: c.line, original_line: c.line, body: c.body, user: fakeUser(c.author),
      created_at: c.createdAt, updated_at: c.createdAt, html_url: `${this.at.web}/pull/${c.pr}#discussion_r${c.id}`,
      pull_request_url: `${this.at.api}/pulls/${c.pr}`,
    } satisfies Served<Api['pulls']['listReviewComments']['response']['data'][number]>;
  }
}

// The fake forge's issues and their comments (test/support/forge/fake-forge.ts), as GitHub's REST API
// answers them: an issue read, the issues listed (by label and state), its comments listed, one
// added, one edited, and every comment of the repository listed since a time. Issues are numbered
// from 101, apart from pull requests (which GitHub numbers in the same sequence), so a test can tell
// them apart; as on GitHub, a pull request is an issue too (read and listed as one, with
// `pull_request`, and commented on), and one whose description says `Fixes #N` closes issue N when
// it merges.

import type { RestEndpointMethodTypes } from '@octokit/rest';
import { fakeUser, notFound, pageOf, stampNow, type ApiAnswer, type FakeRepoAt, type Served } from './fake-forge-rest';

type Api = RestEndpointMethodTypes;

export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  labels: string[];
  state: 'open' | 'closed';
  author: string;
  createdAt: string;
}

export interface FakeComment {
  id: number;
  issue: number;
  body: string;
  author: string;
  createdAt: string;
  updatedAt: string;
  /** Every text it had before an edit, oldest first. */
  edits: string[];
}

/** What a pull request shows as an issue (fake-forge-types.ts PullRecord has it); it has no labels. */
interface PullAsIssue {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  createdAt: string;
}

const invalid = (): ApiAnswer => ({ status: 422, body: { message: 'Validation Failed' } });

/** The issues and comments of one fake forge, and the API routes that serve them. */
export class FakeIssues {
  readonly issues: FakeIssue[] = [];
  readonly comments: FakeComment[] = [];
  /** Each person's role on the repository (admin, maintain, write, triage, read); anyone else reads. */
  readonly roles = new Map<string, string>();

  /** `pulls`: the forge's pull requests, each an issue too. */
  constructor(private readonly at: FakeRepoAt, private readonly pulls: readonly PullAsIssue[]) {}

  /** Opens an issue, as a person would on the forge's page. */
  open(title: string, body: string, labels: string[] = [], author = 'ana'): FakeIssue {
    const issue: FakeIssue = { number: 101 + this.issues.length, title, body, labels, state: 'open', author, createdAt: stampNow() };
    this.issues.push(issue);
    return issue;
  }

  /** Writes a comment on issue or pull request `number`, as `author` would on the forge's page. */
  comment(number: number, author: string, body: string): FakeComment {
    if (!this.has(number)) throw new Error(`fake forge: no issue or pull request #${number} to comment on`);
    const stamp = stampNow();
    const comment: FakeComment = { id: 7_000_001 + this.comments.length, issue: number, body, author, createdAt: stamp, updatedAt: stamp, edits: [] };
    this.comments.push(comment);
    return comment;
  }

  /** The comments on issue `number`, oldest first. */
  on(number: number): FakeComment[] {
    return this.comments.filter((c) => c.issue === number);
  }

  /** A pull request's description merged: each issue it says it fixes is closed. */
  merged(description: string): void {
    for (const [, n] of description.matchAll(/\b(?:fixes|closes|resolves) #(\d+)\b/gi)) {
      const issue = this.issues.find((i) => i.number === Number(n));
      if (issue) issue.state = 'closed';
    }
  }

  /** The answer to `method rest` (the path after /repos/OWNER/REPO), or undefined for a path not about issues. */
  route(method: string, rest: string, query: URLSearchParams, body: Record<string, unknown>): ApiAnswer | undefined {
    let m: RegExpExecArray | null;
    if (method === 'GET' && rest === '/issues') return this.list(rest, query);
    if (method === 'GET' && rest === '/issues/comments') return this.commentsSince(rest, query);
    if (method === 'GET' && (m = /^\/issues\/(\d+)$/.exec(rest))) {
      const number = Number(m[1]);
      const issue = this.issues.find((i) => i.number === number);
      const pull = this.at.isPull(number) ? this.pulls.find((p) => p.number === number) : undefined;
      return issue ? { status: 200, body: this.issueJson(issue) } : pull ? { status: 200, body: this.pullJson(pull) } : notFound();
    }
    if (method === 'PATCH' && (m = /^\/issues\/(\d+)$/.exec(rest))) {
      // What dex does with it: closes an issue whose roadmap has landed.
      const issue = this.issues.find((i) => i.number === Number(m![1]));
      if (!issue) return notFound();
      if (body.state === 'closed' || body.state === 'open') issue.state = body.state;
      return { status: 200, body: this.issueJson(issue) };
    }
    if ((m = /^\/issues\/(\d+)\/comments$/.exec(rest))) {
      const number = Number(m[1]);
      if (!this.has(number)) return notFound();
      if (method === 'GET') return pageOf(`${this.at.api}${rest}`, query, this.on(number).map((c) => this.commentJson(c)));
      if (method === 'POST') {
        if (typeof body.body !== 'string' || !body.body) return invalid();
        return { status: 201, body: this.commentJson(this.comment(number, this.at.tokenUser, body.body)) };
      }
    }
    if (method === 'GET' && (m = /^\/collaborators\/([^/]+)\/permission$/.exec(rest))) {
      const role = this.roles.get(m[1]) ?? 'read';
      const permission = role === 'maintain' ? 'write' : role === 'triage' ? 'read' : role;
      return { status: 200, body: { permission, role_name: role, user: { login: m[1] } } satisfies Served<Api['repos']['getCollaboratorPermissionLevel']['response']['data']> };
    }
    if (method === 'PATCH' && (m = /^\/issues\/comments\/(\d+)$/.exec(rest))) {
      const comment = this.comments.find((c) => c.id === Number(m![1]));
      if (!comment) return notFound();
      if (typeof body.body !== 'string' || !body.body) return invalid();
      comment.edits.push(comment.body);
      Object.assign(comment, { body: body.body, updatedAt: stampNow() });
      return { status: 200, body: this.commentJson(comment) };
    }
    return undefined;
  }

  private has(number: number): boolean {
    return this.issues.some((i) => i.number === number) || this.at.isPull(number);
  }

  /** The issues and pull requests in `state` (open unless asked) that have every label of `labels` (any case), newest first unless `direction=asc`. */
  private list(rest: string, query: URLSearchParams): ApiAnswer {
    const state = query.get('state') ?? 'open';
    const wanted = (query.get('labels') ?? '').split(',').map((l) => l.trim().toLowerCase()).filter(Boolean);
    const all = [
      ...this.issues.map((i) => ({ ...i, json: this.issueJson(i) })),
      ...this.pulls.map((p) => ({ ...p, labels: [] as string[], json: this.pullJson(p) })),
    ];
    const found = all
      .filter((i) => (state === 'all' || i.state === state) && wanted.every((w) => i.labels.some((l) => l.toLowerCase() === w)))
      .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.number - b.number);
    if (query.get('direction') !== 'asc') found.reverse();
    return pageOf(`${this.at.api}${rest}`, query, found.map((i) => i.json));
  }

  /** Every comment updated at or after `since` (GitHub's filter), by creation time (or update time, `sort=updated`), ascending unless `direction=desc`. */
  private commentsSince(rest: string, query: URLSearchParams): ApiAnswer {
    const since = Date.parse(query.get('since') ?? '') || 0;
    const key = query.get('sort') === 'updated' ? 'updatedAt' : 'createdAt';
    const found = this.comments.filter((c) => Date.parse(c.updatedAt) >= since).sort((a, b) => Date.parse(a[key]) - Date.parse(b[key]) || a.id - b.id);
    if (query.get('sort') && query.get('direction') === 'desc') found.reverse();
    return pageOf(`${this.at.api}${rest}`, query, found.map((c) => this.commentJson(c)));
  }

  private issueJson(issue: FakeIssue) {
    return {
      number: issue.number, title: issue.title, body: issue.body, state: issue.state, labels: issue.labels.map((name) => ({ name })),
      user: fakeUser(issue.author), html_url: `${this.at.web}/issues/${issue.number}`, created_at: issue.createdAt,
    } satisfies Served<Api['issues']['get']['response']['data']>;
  }

  /** A pull request as GitHub serves it as an issue. */
  private pullJson(pull: PullAsIssue) {
    return {
      number: pull.number, title: pull.title, body: pull.body, state: pull.state, labels: [], user: fakeUser(this.at.tokenUser),
      html_url: `${this.at.web}/pull/${pull.number}`, created_at: pull.createdAt,
      pull_request: { url: `${this.at.api}/pulls/${pull.number}`, html_url: `${this.at.web}/pull/${pull.number}` },
    } satisfies Served<Api['issues']['get']['response']['data']>;
  }

  private commentJson(c: FakeComment) {
    return {
      id: c.id, body: c.body, user: fakeUser(c.author), created_at: c.createdAt, updated_at: c.updatedAt,
      html_url: `${this.at.web}/issues/${c.issue}#issuecomment-${c.id}`, issue_url: `${this.at.api}/issues/${c.issue}`,
    } satisfies Served<Api['issues']['getComment']['response']['data']>;
  }
}

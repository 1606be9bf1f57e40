// The fake forge's issues and their comments (test/support/forge/fake-forge.ts), as GitHub's REST API
// answers them: an issue read, its comments listed, one added, one edited. Issues are numbered from
// 101, apart from pull requests (which GitHub numbers in the same sequence), so a test can tell them
// apart; a pull request whose description says `Fixes #N` closes issue N when it merges, as GitHub does.

import type { RestEndpointMethodTypes } from '@octokit/rest';

type Api = RestEndpointMethodTypes;
/** An answer of the API (fake-forge-api.ts ApiAnswer's shape). */
type ApiAnswer = { status: number; body?: unknown };
type Served<T> = T extends (infer U)[] ? Served<U>[] : T extends object ? { [K in keyof T]?: Served<T[K]> } : T;

export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  labels: string[];
  state: 'open' | 'closed';
  author: string;
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

/** The issues and comments of one fake forge, and the API routes that serve them. */
export class FakeIssues {
  readonly issues: FakeIssue[] = [];
  readonly comments: FakeComment[] = [];
  /** Each person's role on the repository (admin, maintain, write, triage, read); anyone else reads. */
  readonly roles = new Map<string, string>();

  /** `isPull`: whether `n` is a pull request's number (a pull request is an issue for its comments). */
  constructor(private readonly webUrl: string, private readonly tokenUser: string, private readonly isPull: (n: number) => boolean) {}

  /** Opens an issue, as a person would on the forge's page. */
  open(title: string, body: string, labels: string[] = [], author = 'ana'): FakeIssue {
    const issue: FakeIssue = { number: 101 + this.issues.length, title, body, labels, state: 'open', author };
    this.issues.push(issue);
    return issue;
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
  route(method: string, rest: string, body: Record<string, unknown>): ApiAnswer | undefined {
    let m: RegExpExecArray | null;
    const now = () => new Date().toISOString();
    if (method === 'GET' && (m = /^\/issues\/(\d+)$/.exec(rest))) {
      const issue = this.issues.find((i) => i.number === Number(m![1]));
      return issue ? { status: 200, body: this.issueJson(issue) } : notFound();
    }
    if ((m = /^\/issues\/(\d+)\/comments$/.exec(rest))) {
      const number = Number(m[1]);
      if (!this.issues.some((i) => i.number === number) && !this.isPull(number)) return notFound();
      if (method === 'GET') return { status: 200, body: this.on(number).map((c) => this.commentJson(c)) };
      if (method === 'POST') {
        if (typeof body.body !== 'string' || !body.body) return { status: 422, body: { message: 'Validation Failed' } };
        const comment: FakeComment = { id: 7_000_001 + this.comments.length, issue: number, body: body.body, author: this.tokenUser, createdAt: now(), updatedAt: now(), edits: [] };
        this.comments.push(comment);
        return { status: 201, body: this.commentJson(comment) };
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
      if (typeof body.body !== 'string' || !body.body) return { status: 422, body: { message: 'Validation Failed' } };
      comment.edits.push(comment.body);
      Object.assign(comment, { body: body.body, updatedAt: now() });
      return { status: 200, body: this.commentJson(comment) };
    }
    return undefined;
  }

  private issueJson(issue: FakeIssue) {
    return {
      number: issue.number, title: issue.title, body: issue.body, state: issue.state,
      labels: issue.labels.map((name) => ({ name })), user: { login: issue.author }, html_url: `${this.webUrl}/issues/${issue.number}`,
    } satisfies Served<Api['issues']['get']['response']['data']>;
  }

  private commentJson(c: FakeComment) {
    return {
      id: c.id, body: c.body, user: { login: c.author }, created_at: c.createdAt, updated_at: c.updatedAt, html_url: `${this.webUrl}/issues/${c.issue}#issuecomment-${c.id}`,
    } satisfies Served<Api['issues']['getComment']['response']['data']>;
  }
}

const notFound = (): ApiAnswer => ({ status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } });

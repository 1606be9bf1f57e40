/**
 * What `dex webhook` reads of a GitHub webhook delivery (docs/landing-through-prs.md#webhooks):
 * whether GitHub signed it with the shared secret, and which branch or commit of which
 * repository it says CI (or the pull request) changed on.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CiChanged } from '../../core/roadmap/pull-request-types';
import type { ReviewState } from '../../core/forge/review';

/** The events whose deliveries can move a landing on: checks, statuses, workflow runs and the pull request itself. */
const CI_EVENTS = ['check_run', 'check_suite', 'status', 'pull_request', 'workflow_run'] as const;

/** `pull_request` actions that change nothing a landing waits on (a label, an assignee, a reviewer asked). */
const QUIET_PR_ACTIONS = new Set([
  'assigned', 'unassigned', 'labeled', 'unlabeled', 'milestoned', 'demilestoned', 'locked', 'unlocked', 'review_requested', 'review_request_removed',
]);

/**
 * True when `signature` (the `X-Hub-Signature-256` header, `sha256=<hex>`) is the HMAC-SHA256 of
 * the raw `body` with `secret`; compared in constant time. A missing or malformed header is false.
 */
export function signedBy(secret: string, body: Buffer, signature: string | undefined): boolean {
  const given = signature?.trim().toLowerCase() ?? '';
  if (!/^sha256=[0-9a-f]{64}$/.test(given)) return false;
  return timingSafeEqual(Buffer.from(signatureOf(secret, body)), Buffer.from(given));
}

/** The `X-Hub-Signature-256` header GitHub sends with `body` (what a test, or a person checking a set-up, signs with). */
export function signatureOf(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** What a delivery says changed, and the words its log line uses: `check_suite completed`. */
export interface CiEvent {
  change: CiChanged;
  /** The repository's web URL, which names its forge: where the pull request of the change's branch is asked for. */
  repositoryUrl?: string;
  /** The event and its action, as GitHub names them. */
  what: string;
}

/**
 * The change a delivery of `event` reports, or undefined when it is not one a landing waits on
 * (another event, a quiet pull request action, no repository in the payload).
 */
export function ciEventOf(event: string, payload: unknown): CiEvent | undefined {
  const p = obj(payload);
  const repository = obj(p.repository);
  const owner = str(obj(repository.owner).login);
  const repo = str(repository.name);
  if (!owner || !repo || !(CI_EVENTS as readonly string[]).includes(event)) return undefined;
  const action = str(p.action);
  if (event === 'pull_request' && action && QUIET_PR_ACTIONS.has(action)) return undefined;
  const at = headOf(event, p);
  if (!at.branch && !at.sha) return undefined;
  const repositoryUrl = str(repository.html_url);
  return { change: { owner, repo, ...at }, ...(repositoryUrl ? { repositoryUrl } : {}), what: action ? `${event} ${action}` : `${event} ${str(p.state) ?? ''}`.trim() };
}

/** The branch and head commit a delivery names, from where each event keeps them. */
function headOf(event: string, p: Json): { branch?: string; sha?: string } {
  const pick = (branch: unknown, sha: unknown) => {
    const b = str(branch);
    const s = str(sha);
    return { ...(b ? { branch: b } : {}), ...(s ? { sha: s } : {}) };
  };
  switch (event) {
    case 'check_run': {
      const run = obj(p.check_run);
      return pick(obj(run.check_suite).head_branch ?? firstPullHead(run.pull_requests), run.head_sha);
    }
    case 'check_suite': {
      const suite = obj(p.check_suite);
      return pick(suite.head_branch ?? firstPullHead(suite.pull_requests), suite.head_sha);
    }
    case 'workflow_run': {
      const run = obj(p.workflow_run);
      return pick(run.head_branch, run.head_sha);
    }
    case 'pull_request': {
      const head = obj(obj(p.pull_request).head);
      return pick(head.ref, head.sha);
    }
    default: {
      // `status`: a commit's state; `branches` lists every branch whose tip it is, so one is named only when it is the only one.
      const branches = Array.isArray(p.branches) ? p.branches.map((b) => str(obj(b).name)).filter(Boolean) : [];
      return pick(branches.length === 1 ? branches[0] : undefined, p.sha);
    }
  }
}

/** The head branch of a check's first pull request (a check suite on a fork's commit has no head_branch). */
function firstPullHead(pulls: unknown): string | undefined {
  return Array.isArray(pulls) ? str(obj(obj(pulls[0]).head).ref) : undefined;
}

/** An issue given the trigger label: what a run on it needs from the delivery. */
export interface IssueTrigger {
  /** The repository's web URL (`https://github.com/octo/demo`), which names its forge too. */
  repositoryUrl: string;
  owner: string;
  repo: string;
  number: number;
  title: string;
  body: string;
  url?: string;
}

/**
 * The issue an `issues` delivery gives the trigger label `label` (compared without case), or
 * undefined for any other delivery: another action, another label, a pull request, no repository.
 */
export function issueTriggerOf(event: string, payload: unknown, label: string): IssueTrigger | undefined {
  if (event !== 'issues') return undefined;
  const p = obj(payload);
  if (str(p.action) !== 'labeled' || str(obj(p.label).name)?.toLowerCase() !== label.toLowerCase()) return undefined;
  const repository = obj(p.repository);
  const issue = obj(p.issue);
  const owner = str(obj(repository.owner).login);
  const repo = str(repository.name);
  const repositoryUrl = str(repository.html_url);
  const number = typeof issue.number === 'number' ? issue.number : undefined;
  if (!owner || !repo || !repositoryUrl || number === undefined || issue.pull_request !== undefined) return undefined;
  return { repositoryUrl, owner, repo, number, title: str(issue.title) ?? `Issue #${number}`, body: typeof issue.body === 'string' ? issue.body : '', url: str(issue.html_url) };
}

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Where a comment or review was written, and by whom (whether GitHub says it is a bot). */
interface Authored {
  repositoryUrl: string;
  owner: string;
  repo: string;
  author: string;
  bot: boolean;
}

/** The repository of a delivery and who wrote what it brings (a comment, a review); undefined when either is missing. */
function authoredIn(p: Json, written: Json): Authored | undefined {
  const repository = obj(p.repository);
  const user = obj(written.user);
  const owner = str(obj(repository.owner).login);
  const repo = str(repository.name);
  const repositoryUrl = str(repository.html_url);
  const author = str(user.login);
  return owner && repo && repositoryUrl && author ? { repositoryUrl, owner, repo, author, bot: str(user.type) === 'Bot' } : undefined;
}

/** A comment on an issue or pull request, as a gate command needs it. */
export interface IssueComment extends Authored {
  /** The issue's or pull request's number, and title. */
  number: number;
  title: string;
  isPull: boolean;
  /** The comment's id: a request in it starts one run, whatever the forge redelivers. */
  commentId: number;
  /** The issue's text or the pull request's description. */
  description: string;
  body: string;
}

/** The comment an `issue_comment created` delivery brings, or undefined for any other delivery. */
export function issueCommentOf(event: string, payload: unknown): IssueComment | undefined {
  if (event !== 'issue_comment') return undefined;
  const p = obj(payload);
  if (str(p.action) !== 'created') return undefined;
  const issue = obj(p.issue);
  const comment = obj(p.comment);
  const from = authoredIn(p, comment);
  const number = num(issue.number);
  const commentId = num(comment.id);
  if (!from || number === undefined || commentId === undefined) return undefined;
  return {
    ...from, number, title: str(issue.title) ?? `#${number}`, commentId, isPull: issue.pull_request !== undefined, description: text(issue.body), body: text(comment.body),
  };
}

/** A review submitted on a pull request, as dex's landing of it needs it. */
export interface ReviewDelivery extends Authored {
  pr: number;
  /** The pull request's description: dex's names the run and task of its landing. */
  description: string;
  reviewId: number;
  state: ReviewState;
}

const REVIEW_STATES: readonly string[] = ['approved', 'changes_requested', 'commented'] satisfies ReviewState[];

/** The review a `pull_request_review submitted` delivery brings, or undefined for any other delivery (an edit, a dismissal). */
export function reviewOf(event: string, payload: unknown): ReviewDelivery | undefined {
  if (event !== 'pull_request_review') return undefined;
  const p = obj(payload);
  if (str(p.action) !== 'submitted') return undefined;
  const review = obj(p.review);
  const pull = obj(p.pull_request);
  const from = authoredIn(p, review);
  const state = str(review.state)?.toLowerCase();
  const pr = num(pull.number);
  const reviewId = num(review.id);
  if (!from || pr === undefined || reviewId === undefined || !state || !REVIEW_STATES.includes(state)) return undefined;
  return { ...from, pr, description: text(pull.body), reviewId, state: state as ReviewState };
}

/**
 * The HTTP side of `dex webhook` (docs/landing-through-prs.md#webhooks): takes GitHub's
 * deliveries, refuses any not signed with the shared secret (401), and hands each CI change to
 * `signal`, answering GitHub once the runs have been told.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ciEventOf, issueCommentOf, issueTriggerOf, reviewOf, signedBy, type CiEvent, type IssueComment, type IssueTrigger, type ReviewDelivery } from './github-events';
import { HttpError, readBody } from '../server/http-body';

/** GitHub caps a delivery at 25 MB. */
const MAX_BODY_BYTES = 25 * 1024 * 1024;

interface WebhookServerOptions {
  secret: string;
  /** 0 picks a free port. */
  port: number;
  host: string;
  /** Tells the runs about a change; resolves to how many were told. */
  signal(event: CiEvent): Promise<number>;
  /** The issue label that starts a run. */
  label: string;
  /** Starts the run of an issue given the label (unless it has one); resolves to the log's line. */
  startIssue(trigger: IssueTrigger): Promise<string>;
  /** Answers a `/dex …` gate command in a comment; resolves to the log's line, undefined when the comment holds none. */
  answerComment(comment: IssueComment): Promise<string | undefined>;
  /** Tells the run a review of its pull request is for; resolves to the log's line. */
  answerReview(review: ReviewDelivery): Promise<string>;
  /** One line per delivery. */
  log(line: string): void;
}

interface WebhookServer {
  url: string;
  close(): Promise<void>;
}

/** The payload: the JSON body (content type application/json), or its `payload` field (application/x-www-form-urlencoded). */
function payloadOf(req: IncomingMessage, body: Buffer): unknown {
  const text = body.toString('utf8');
  const form = /application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '');
  try {
    return JSON.parse(form ? (new URLSearchParams(text).get('payload') ?? '') : text);
  } catch {
    throw new HttpError(400, 'the payload is not JSON');
  }
}

/** The seven characters of a commit a log line shows. */
const short = (sha: string | undefined) => sha?.slice(0, 7);

/** `check_suite completed on dex/t2 (abc1234) in octo/hello`. */
function described(event: CiEvent): string {
  const { branch, sha } = event.change;
  const where = branch ? `${branch}${sha ? ` (${short(sha)})` : ''}` : short(sha);
  return `${event.what} on ${where} in ${event.change.owner}/${event.change.repo}`;
}

async function handle(req: IncomingMessage, opts: WebhookServerOptions): Promise<{ status: number; body: unknown }> {
  if (req.method !== 'POST') throw new HttpError(405, 'only POST: this is a GitHub webhook receiver');
  const body = await readBody(req, MAX_BODY_BYTES);
  const name = String(req.headers['x-github-event'] ?? '');
  if (!signedBy(opts.secret, body, req.headers['x-hub-signature-256'] as string | undefined)) {
    opts.log(`refused a ${name || 'delivery'} from ${req.socket.remoteAddress}: no or a wrong X-Hub-Signature-256 (is the webhook's secret the one dex has?)`);
    throw new HttpError(401, 'no or a wrong X-Hub-Signature-256');
  }
  const payload = payloadOf(req, body);
  if (name === 'ping') {
    opts.log('ping: GitHub reached dex webhook');
    return { status: 200, body: { pong: true } };
  }
  const trigger = issueTriggerOf(name, payload, opts.label);
  if (trigger) return startIssue(trigger, opts);
  const comment = issueCommentOf(name, payload);
  if (comment) return answerComment(comment, opts);
  const review = reviewOf(name, payload);
  if (review) return answerReview(review, opts);
  const event = ciEventOf(name, payload);
  if (!event) {
    opts.log(`${name || 'a delivery without X-GitHub-Event'}: ignored (no CI change a landing waits on)`);
    return { status: 200, body: { ignored: name } };
  }
  try {
    const told = await opts.signal(event);
    opts.log(`${described(event)}: signalled ${told} run${told === 1 ? '' : 's'}`);
    return { status: 200, body: { signalled: told } };
  } catch (err) {
    const reason = firstLine(err);
    opts.log(`${described(event)}: could not signal the runs: ${reason}`);
    // A 5xx shows as a failed delivery on GitHub, where a person can redeliver it.
    throw new HttpError(503, `could not signal the runs: ${reason}`);
  }
}

/** An error's first line: what a log line and GitHub's delivery page show of it. */
export const firstLine = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0];

/**
 * One delivery answered by `answer`: its log line `what: line` and a 200; or, when it throws, the log
 * line `what: where: failed.log: reason` and a 503, which GitHub shows as a failed delivery a person can redeliver.
 */
async function answered(opts: WebhookServerOptions, what: string, where: string, failed: { log: string; http: string }, answer: () => Promise<{ line: string; body: unknown }>) {
  try {
    const { line, body } = await answer();
    opts.log(`${what}: ${line}`);
    return { status: 200, body };
  } catch (err) {
    const reason = firstLine(err);
    opts.log(`${what}: ${where}: ${failed.log}: ${reason}`);
    throw new HttpError(503, `${failed.http}: ${reason}`);
  }
}

/** An issue given the trigger label: its run started, or found started before. */
const startIssue = (trigger: IssueTrigger, opts: WebhookServerOptions) =>
  answered(opts, `issues labeled ${opts.label}`, `${trigger.owner}/${trigger.repo}#${trigger.number}`, { log: 'could not start its run', http: "could not start the issue's run" }, async () => {
    const said = await opts.startIssue(trigger);
    return { line: said, body: { issue: trigger.number, said } };
  });

/** A comment: a gate command or a request in it answered (and replied to), or nothing to do. */
const answerComment = (comment: IssueComment, opts: WebhookServerOptions) => {
  const where = `${comment.owner}/${comment.repo}#${comment.number}`;
  return answered(opts, 'issue_comment created', where, { log: 'could not answer it', http: 'could not answer the comment' }, async () => {
    const said = await opts.answerComment(comment);
    return { line: said ?? `${where}: no /dex command`, body: said ? { said } : { ignored: 'issue_comment' } };
  });
};

/** A review: told to the run of the pull request's landing, or why not. */
const answerReview = (review: ReviewDelivery, opts: WebhookServerOptions) =>
  answered(opts, 'pull_request_review submitted', `${review.owner}/${review.repo}#${review.pr}`, { log: 'could not tell its run', http: "could not tell the review's run" }, async () => {
    const said = await opts.answerReview(review);
    return { line: said, body: { said } };
  });

function respond(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Listens for deliveries on `host:port` until closed. */
export async function startWebhookServer(opts: WebhookServerOptions): Promise<WebhookServer> {
  const server: Server = createServer((req, res) => {
    handle(req, opts).then(
      ({ status, body }) => respond(res, status, body),
      (err: unknown) => respond(res, err instanceof HttpError ? err.status : 500, { error: err instanceof Error ? err.message : String(err) }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host;
  return {
    url: `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * A review on dex's pull request (docs/forge-triggers.md#reviews-answered-on-the-same-pr): what the
 * webhook tells the run, what the forge activity reads of it, what the `revise` phase is told, and
 * how its answer is split into one reply per thread. Pure: the workflow, the webhook and the
 * activities share it.
 */

/** A review's verdict, as GitHub's webhook names it. */
export type ReviewState = 'approved' | 'changes_requested' | 'commented';

/** From `dex webhook`: a person with write access submitted a review on the pull request of `taskId`'s landing. */
export interface ReviewSubmitted {
  owner: string;
  repo: string;
  pr: number;
  taskId: string;
  reviewId: number;
  state: ReviewState;
  author: string;
  /** `@dex <request>` in a comment on the pull request (its id is `reviewId`): taken as a review whose text is the request. */
  request?: string;
}

/** One comment earlier in a thread: the reviewer's first word, dex's question, an answer. */
export interface ThreadEntry {
  author: string;
  body: string;
}

/** One comment of a review, on a line of a file (or, with neither, on the review as a whole). */
export interface ReviewComment {
  id: number;
  /** The id of the thread's first comment: where dex replies (GitHub answers replies to replies in their thread). */
  thread: number;
  path?: string;
  line?: number;
  author: string;
  body: string;
  /** The thread before this comment, oldest first: empty for a comment that opens one. */
  before: ThreadEntry[];
}

/** A review as the forge activity reads it: its text and its comments. */
export interface Review {
  id: number;
  author: string;
  state: ReviewState;
  body: string;
  comments: ReviewComment[];
}

/** What a `revise` run is told (TaskInput.revise). */
export interface ReviseRequest {
  /** The pull request, as the prompt names it (`PR #12`). */
  pullRequest: string;
  /** Which revise run of this task this is (1, 2, …): keeps transcripts and checkpoint keys apart. */
  round: number;
  review: Review;
}

/** What the agent said of one comment: what it changed, or what it needs to know first. */
export interface ThreadReply {
  thread: number;
  comment: number;
  text: string;
  /** The agent asks back: the thread waits for the reviewer's answer. */
  question: boolean;
}

/** How long a comment's text the prompt quotes. */
const COMMENT_CHARS = 4000;
/** How many comments of one review a revise run takes, so a huge review cannot swell the run's history; the rest are left out. */
const MOST_COMMENTS = 50;

/** `review` cut to what a revise run is told, so a huge review does not swell the run's history. */
export function clipReview(review: Review): Review {
  const clip = (text: string) => (text.length > COMMENT_CHARS ? `${text.slice(0, COMMENT_CHARS)}…` : text);
  return {
    ...review,
    body: clip(review.body),
    comments: review.comments.slice(0, MOST_COMMENTS).map((c) => ({ ...c, body: clip(c.body), before: c.before.slice(-5).map((e) => ({ ...e, body: clip(e.body) })) })),
  };
}

/** The marker a comment's line in the prompt, and its answer in the agent's summary, start with: `c123`. */
const tag = (c: ReviewComment) => `c${c.id}`;

/** The `revise` phase's context: every comment of the review with its file, line and thread, and how to answer each. */
export function describeReview(request: ReviseRequest): string {
  const { review } = request;
  const lines = [`${review.author} reviewed ${request.pullRequest} (${review.state.replace('_', ' ')}).`];
  if (review.body.trim()) lines.push('', 'The review says:', quote(review.body));
  for (const c of review.comments) {
    const where = c.path ? `${c.path}${c.line ? `:${c.line}` : ''}` : 'the pull request';
    lines.push('', `[${tag(c)}] on ${where}:`);
    for (const e of c.before) lines.push(`  earlier, ${e.author}: ${oneBlock(e.body)}`);
    lines.push(`  ${c.author}: ${oneBlock(c.body)}`);
  }
  lines.push(
    '',
    'Answer every comment in your completion summary, one line each: `c<id>: <what you changed>` when you changed something for it,',
    'or `c<id>? <your question>` when the comment is unclear and you need the reviewer to say more (change nothing for it then).',
  );
  return lines.join('\n');
}

const oneBlock = (text: string) => text.replace(/\n/g, '\n    ');
const quote = (text: string) => text.split('\n').map((l) => `> ${l}`).join('\n');

/**
 * One reply per thread of `review` from the revise run's `summary`: the agent's line for a
 * comment (`c12: …` a change, `c12? …` a question); a comment it did not answer gets the summary's
 * other lines (what it did as a whole). Comments of one thread share one reply; a review with
 * none gets one, on the pull request.
 */
export function repliesOf(review: Review, summary: string): ThreadReply[] {
  // A review with no line comments is answered on the pull request itself (thread 0).
  if (!review.comments.length) return [{ thread: 0, comment: review.id, text: summary.trim() || 'Revised.', question: false }];
  const said = new Map<number, { text: string; question: boolean }>();
  const rest: string[] = [];
  for (const line of summary.split('\n')) {
    const m = /^\s*[-*]?\s*`?c(\d+)`?\s*([:?])\s*(.*)$/.exec(line);
    if (m && review.comments.some((c) => c.id === Number(m[1]))) said.set(Number(m[1]), { text: m[3].trim(), question: m[2] === '?' });
    else if (line.trim()) rest.push(line.trim());
  }
  const general = rest.join(' ') || 'Revised.';
  const byThread = new Map<number, ThreadReply>();
  for (const c of review.comments) {
    const own = said.get(c.id);
    const reply: ThreadReply = { thread: c.thread, comment: c.id, text: own?.text || general, question: own?.question ?? false };
    const earlier = byThread.get(c.thread);
    // Two comments in one thread: one reply, a question when either asks one.
    byThread.set(c.thread, earlier ? { ...earlier, text: `${earlier.text}\n\n${reply.text}`, question: earlier.question || reply.question } : reply);
  }
  return [...byThread.values()];
}

/**
 * `dex webhook --poll OWNER/NAME` (docs/forge-triggers.md#polling): where GitHub's webhooks cannot
 * reach dex (no public address, a firewall), dex asks the forge every few seconds what a webhook
 * would have said — issues with the trigger label, new comments, new reviews — and answers each as
 * the receiver does. Each is taken once: the runs' ids and the run's review inbox make a second
 * sight harmless, and what was answered is remembered; what could not be answered is tried again
 * on the next round. CI needs no polling: a landing reads its checks on its own timers.
 */
import type { ForgeRepository } from '../../core/fleet/repo-locator';
import { commentsSince, labelledIssues, reviewsSince } from '../../host/forge/github-poll';
import type { IssueComment, IssueTrigger, ReviewDelivery } from './github-events';
import { firstLine } from './webhook-server';

/** What a polled item is answered with: the receiver's own handlers. */
interface PollHandlers {
  startIssue(trigger: IssueTrigger): Promise<string>;
  answerComment(comment: IssueComment): Promise<string | undefined>;
  answerReview(review: ReviewDelivery): Promise<string>;
  log(line: string): void;
}

/** How far back each round looks past the newest item seen: the forge's times have whole seconds, and a comment may show up late. */
const OVERLAP_MS = 5 * 60_000;

const later = (a: string, b: string) => (Date.parse(a) > Date.parse(b) ? a : b);

/** Polls `repo` every `everyMs` from `since` (ISO time) on, until stopped. */
export function startPolling(repo: ForgeRepository, opts: { everyMs: number; label: string; since: string }, handlers: PollHandlers, env: NodeJS.ProcessEnv = process.env): { stop(): Promise<void> } {
  const repositoryUrl = repo.gitUrl.replace(/\.git$/, '');
  const { owner, repo: name } = repo;
  const answered = { issues: new Set<number>(), comments: new Set<number>(), reviews: new Set<number>() };
  let newest = opts.since;
  const since = () => new Date(Math.max(Date.parse(opts.since), Date.parse(newest) - OVERLAP_MS)).toISOString();
  // One item answered, or left for the next round when its answer failed.
  const once = async (seen: Set<number>, id: number, what: string, answer: () => Promise<string>) => {
    if (seen.has(id)) return;
    try {
      handlers.log(`${what} (polled): ${await answer()}`);
      seen.add(id);
    } catch (err) {
      handlers.log(`${what} (polled): ${owner}/${name}: could not answer it, trying again next round: ${firstLine(err)}`);
    }
  };
  const round = async () => {
    const from = since();
    for (const issue of await labelledIssues(repo, opts.label, env)) {
      await once(answered.issues, issue.number, `issues labeled ${opts.label}`, () => handlers.startIssue({ repositoryUrl, owner, repo: name, ...issue }));
    }
    for (const c of await commentsSince(repo, from, env)) {
      const comment: IssueComment = { repositoryUrl, owner, repo: name, number: c.number, title: c.title, isPull: c.isPull, commentId: c.id, description: c.description, author: c.author, bot: c.bot, body: c.body };
      await once(answered.comments, c.id, 'issue_comment created', async () => (await handlers.answerComment(comment)) ?? `${owner}/${name}#${c.number}: no /dex command`);
      newest = later(newest, c.createdAt);
    }
    for (const r of await reviewsSince(repo, from, env)) {
      const review: ReviewDelivery = { repositoryUrl, owner, repo: name, pr: r.pr, description: r.description, reviewId: r.reviewId, state: r.state, author: r.author, bot: r.bot };
      await once(answered.reviews, r.reviewId, 'pull_request_review submitted', () => handlers.answerReview(review));
      newest = later(newest, r.submittedAt);
    }
  };
  let stopped = false;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopped) {
      await round().catch((err: unknown) => handlers.log(`polling ${owner}/${name}: ${firstLine(err)}; trying again in ${opts.everyMs / 1000} s`));
      if (!stopped) await new Promise<void>((resolve) => { wake = resolve; setTimeout(resolve, opts.everyMs).unref(); });
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      wake?.();
      await loop;
    },
  };
}

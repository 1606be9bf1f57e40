// What `dex webhook --poll` asks GitHub each round (docs/forge-triggers.md#polling), in place of the
// webhooks that cannot reach it: the issues with the trigger label, the comments and the reviews
// made since the last round, each with what its delivery would have carried.

import type { ReviewState } from '../../core/forge/review';
import type { ForgeTarget } from '../../core/roadmap/pull-request-types';
import { githubClient } from './github-forge';
import { authorOf, REVIEW_STATES } from './github-reviews';

/** Whether `time` is strictly after `since` (both ISO). */
const after = (time: string, since: string): boolean => Date.parse(time) > Date.parse(since);

/** Oldest first by `time`, then by `id` (GitHub's times have whole seconds, its ids grow). */
const oldestFirst = <T>(time: (x: T) => string, id: (x: T) => number) => (a: T, b: T): number => Date.parse(time(a)) - Date.parse(time(b)) || id(a) - id(b);

/** Open issues (not pull requests) of the repository that have label `label` (any case), oldest first. */
export async function labelledIssues(target: ForgeTarget, label: string, env: NodeJS.ProcessEnv = process.env): Promise<{ number: number; title: string; body: string; url: string }[]> {
  const { octokit, call } = await githubClient(target, env);
  const { owner, repo } = target;
  const listed = await call(`list the open issues labelled ${label}`, () =>
    octokit.paginate(octokit.rest.issues.listForRepo, { owner, repo, labels: label, state: 'open', sort: 'created', direction: 'asc', per_page: 100 }),
  );
  // GitHub lists pull requests among issues.
  return listed.filter((i) => !i.pull_request).map((i) => ({ number: i.number, title: i.title, body: i.body ?? '', url: i.html_url }));
}

/** Comments on the repository's issues and pull requests created after `since` (ISO time), oldest first, each with the issue or pull request it is on. */
export async function commentsSince(target: ForgeTarget, since: string, env: NodeJS.ProcessEnv = process.env): Promise<{ id: number; number: number; isPull: boolean; title: string; description: string; author: string; bot: boolean; body: string; createdAt: string }[]> {
  const { octokit, call } = await githubClient(target, env);
  const { owner, repo } = target;
  const listed = await call(`list the comments since ${since}`, () =>
    octokit.paginate(octokit.rest.issues.listCommentsForRepo, { owner, repo, since, sort: 'created', direction: 'asc', per_page: 100 }),
  );
  // GitHub's `since` is of the last update: an old comment edited since (dex's state comment) is no new one.
  const made = listed.filter((c) => after(c.created_at, since)).sort(oldestFirst((c) => c.created_at, (c) => c.id));
  const issues = new Map<number, { title: string; description: string; isPull: boolean }>();
  const comments = [];
  for (const c of made) {
    const number = Number(/\/issues\/(\d+)$/.exec(c.issue_url)?.[1]);
    if (!number) continue;
    if (!issues.has(number)) {
      const { data } = await call(`read #${number}`, () => octokit.rest.issues.get({ owner, repo, issue_number: number }));
      issues.set(number, { title: data.title, description: data.body ?? '', isPull: data.pull_request !== undefined });
    }
    const { title, description, isPull } = issues.get(number)!;
    comments.push({ id: c.id, number, isPull, title, description, author: authorOf(c), bot: c.user?.type === 'Bot', body: c.body ?? '', createdAt: c.created_at });
  }
  return comments;
}

/** Reviews submitted after `since` on the repository's open pull requests, oldest first. */
export async function reviewsSince(target: ForgeTarget, since: string, env: NodeJS.ProcessEnv = process.env): Promise<{ pr: number; description: string; reviewId: number; state: 'approved' | 'changes_requested' | 'commented'; author: string; bot: boolean; submittedAt: string }[]> {
  const { octokit, call } = await githubClient(target, env);
  const { owner, repo } = target;
  const pulls = await call('list the open pull requests', () => octokit.paginate(octokit.rest.pulls.list, { owner, repo, state: 'open', per_page: 100 }));
  const found = [];
  for (const pr of pulls) {
    const reviews = await call(`read the reviews of #${pr.number}`, () => octokit.paginate(octokit.rest.pulls.listReviews, { owner, repo, pull_number: pr.number, per_page: 100 }));
    for (const r of reviews) {
      const state = r.state.toLowerCase() as ReviewState;
      // A pending review is not submitted yet; a dismissed one no longer speaks.
      if (!r.submitted_at || !after(r.submitted_at, since) || !REVIEW_STATES.includes(state)) continue;
      found.push({ pr: pr.number, description: pr.body ?? '', reviewId: r.id, state, author: authorOf(r), bot: r.user?.type === 'Bot', submittedAt: r.submitted_at });
    }
  }
  return found.sort(oldestFirst((r) => r.submittedAt, (r) => r.reviewId));
}

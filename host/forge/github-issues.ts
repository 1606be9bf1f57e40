// dex's one comment on an issue (docs/forge-triggers.md#the-state-comment): found by a marker only dex
// writes, edited in place on every change, so the issue shows one current state, not a trail of them.

import type { ForgeTarget } from '../../core/roadmap/pull-request-types';
import { githubClient } from './github-forge';

/** Writes `body` as dex's comment on issue `issue`: edits the comment that holds `marker`, or opens one. Returns its URL. */
export async function upsertGithubIssueComment(target: ForgeTarget, issue: number, marker: string, body: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const { octokit, call } = await githubClient(target, env);
  const { owner, repo } = target;
  const comments = await call(`read the comments of #${issue}`, () => octokit.paginate(octokit.rest.issues.listComments, { owner, repo, issue_number: issue, per_page: 100 }));
  const ours = comments.find((c) => c.body?.includes(marker));
  if (ours) {
    if (ours.body === body) return ours.html_url;
    const { data } = await call(`edit dex's comment on #${issue}`, () => octokit.rest.issues.updateComment({ owner, repo, comment_id: ours.id, body }));
    return data.html_url;
  }
  const { data } = await call(`comment on #${issue}`, () => octokit.rest.issues.createComment({ owner, repo, issue_number: issue, body }));
  return data.html_url;
}

/** Closes issue `issue` (closing a closed one again is harmless). */
export async function closeGithubIssue(target: ForgeTarget, issue: number, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { octokit, call } = await githubClient(target, env);
  await call(`close #${issue}`, () => octokit.rest.issues.update({ owner: target.owner, repo: target.repo, issue_number: issue, state: 'closed' }));
}

/** What `user` may do on `target`'s repository, as GitHub names it (admin, maintain, write, triage, read, none). */
export async function githubPermission(target: ForgeTarget, user: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const { octokit, call } = await githubClient(target, env);
  const { data } = await call(`read ${user}'s permission`, () => octokit.rest.repos.getCollaboratorPermissionLevel({ owner: target.owner, repo: target.repo, username: user }));
  return data.role_name || data.permission;
}

/** Adds a comment to issue or pull request `number`: dex's reply to a person there. */
export async function replyOnGithubIssue(target: ForgeTarget, number: number, body: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { octokit, call } = await githubClient(target, env);
  await call(`reply on #${number}`, () => octokit.rest.issues.createComment({ owner: target.owner, repo: target.repo, issue_number: number, body }));
}

/** The descriptions of the open pull requests whose head is `branch` (dex's name the run that landing is of). */
export async function openPullDescriptions(target: ForgeTarget, branch: string, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const { octokit, call } = await githubClient(target, env);
  const { owner, repo } = target;
  const { data } = await call(`list pull requests of ${branch}`, () => octokit.rest.pulls.list({ owner, repo, head: `${owner}:${branch}`, state: 'open', per_page: 10 }));
  return data.map((pr) => pr.body ?? '');
}

/** The descriptions of the open pull requests of commit `sha`, for a delivery that names no branch (GitHub's pull requests of the commit). */
export async function openPullDescriptionsOfCommit(target: ForgeTarget, sha: string, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const { octokit, call } = await githubClient(target, env);
  const { owner, repo } = target;
  const { data } = await call(`list pull requests of ${sha.slice(0, 7)}`, () => octokit.rest.repos.listPullRequestsAssociatedWithCommit({ owner, repo, commit_sha: sha, per_page: 10 }));
  return data.filter((pr) => pr.state === 'open').map((pr) => pr.body ?? '');
}

/** A pull request as `@dex` on it needs it: its branches, whether its head is in this repository (not a fork's), its text and state. */
export async function readGithubPull(target: ForgeTarget, number: number, env: NodeJS.ProcessEnv = process.env) {
  const { octokit, call } = await githubClient(target, env);
  const { data } = await call(`read pull request #${number}`, () => octokit.rest.pulls.get({ owner: target.owner, repo: target.repo, pull_number: number }));
  const sameRepository = data.head.repo?.full_name?.toLowerCase() === `${target.owner}/${target.repo}`.toLowerCase();
  return { head: data.head.ref, base: data.base.ref, sameRepository, title: data.title, body: data.body ?? '', open: data.state === 'open', url: data.html_url };
}

/** The texts of the comments `author` wrote on issue or pull request `number`, newest first. */
export async function commentsBy(target: ForgeTarget, number: number, author: string, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const { octokit, call } = await githubClient(target, env);
  const comments = await call(`read the comments of #${number}`, () => octokit.paginate(octokit.rest.issues.listComments, { owner: target.owner, repo: target.repo, issue_number: number, per_page: 100 }));
  return comments.filter((c) => c.user?.login.toLowerCase() === author.toLowerCase()).map((c) => c.body ?? '').reverse();
}

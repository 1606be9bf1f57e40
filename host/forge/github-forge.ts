// The Forge on GitHub (docs/landing-through-prs.md), through its official client @octokit/rest.
// The token is read from the worker's environment (`target.tokenEnv`) when a forge is made; it goes
// in the Authorization header and nowhere else: errors are written here from the status alone.
// @octokit/rest has no retry or throttling plugin: Temporal's retry policy is the only one
// (workflows/run/policies.ts forgePolicy); each request is bounded by REQUEST_TIMEOUT_MS.
//
// The endpoints, all GitHub REST: pulls list/create/get/merge; checks listForRef and get; a GitHub
// Actions job is re-run with actions reRunJobForWorkflowRun (an Actions check run's id is its job's
// id; `checks/rerequest` refuses personal tokens) and its log read with
// downloadJobLogsForWorkflowRun; another app's check with checks rerequestRun and its output text;
// required checks from repos getBranch (protection, readable without admin) and getBranchRules
// (rulesets); git deleteRef.

import type { Octokit } from '@octokit/rest';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../core/run/failure-types';
import type { ForgeTarget, MergeOutcome, PullRequestRef } from '../../core/roadmap/pull-request-types';
import type { Forge, ForgeCheckRun, ForgePullRequest, MergeRequest } from './forge';

export const GITHUB_API = 'https://api.github.com';
/** One request's limit: a hung connection fails and Temporal retries the activity. */
export const REQUEST_TIMEOUT_MS = 30_000;

type ApiPull = { number: number; html_url: string; state: string; head: { ref: string; sha: string }; base: { ref: string } };

const ref = (pr: ApiPull): PullRequestRef => ({ number: pr.number, url: pr.html_url, head: pr.head.ref, base: pr.base.ref, headSha: pr.head.sha });

/** The HTTP status of an Octokit error (a network failure is reported as 500 by the client), if any. */
function statusOf(err: unknown): number | undefined {
  const status = (err as { status?: unknown })?.status;
  return typeof status === 'number' ? status : undefined;
}

/** GitHub's own message of a refused request (its JSON `message`), never the request (it holds the token). */
function messageOf(err: unknown): string {
  const data = (err as { response?: { data?: unknown } })?.response?.data;
  const message = data && typeof data === 'object' ? (data as { message?: unknown }).message : undefined;
  return typeof message === 'string' ? message.split('\n')[0].slice(0, 300) : '';
}

function rateLimited(err: unknown): boolean {
  const headers = (err as { response?: { headers?: Record<string, string | undefined> } })?.response?.headers ?? {};
  return headers['x-ratelimit-remaining'] === '0' || headers['retry-after'] !== undefined || /rate limit/i.test(messageOf(err));
}

/**
 * The failure a request's error stands for: one line, naming what to fix and never the token.
 * 401/403: the token (rate limits excepted); 404: the repository or what was asked for; other
 * 4xx: refused; 5xx, 429, rate limits and network errors: retried.
 */
export function forgeFailure(err: unknown, target: ForgeTarget, doing: string): ApplicationFailure {
  const status = statusOf(err);
  const repo = `${target.owner}/${target.repo}`;
  const said = messageOf(err);
  const why = said ? `: ${said}` : '';
  if ((status === 401 || status === 403) && !rateLimited(err)) {
    return ApplicationFailure.create({ type: FAILURE.ForgeAuth, nonRetryable: true, message: `GitHub refused the token in ${target.tokenEnv} (HTTP ${status}) ${doing} on ${repo}${why}` });
  }
  if (status === 404) {
    return ApplicationFailure.create({ type: FAILURE.ForgeNotFound, nonRetryable: true, message: `GitHub found no ${repo} (or nothing to ${doing} there) with the token in ${target.tokenEnv} (HTTP 404)${why}` });
  }
  if (status !== undefined && status >= 400 && status < 500 && status !== 429 && !rateLimited(err)) {
    return ApplicationFailure.create({ type: FAILURE.ForgeRequestRefused, nonRetryable: true, message: `GitHub refused to ${doing} on ${repo} (HTTP ${status})${why}` });
  }
  const how = status === undefined || status === 500 && !said ? 'could not be reached' : `answered HTTP ${status}`;
  return ApplicationFailure.create({ type: FAILURE.ForgeUnavailable, message: `GitHub ${how} to ${doing} on ${repo}${why}` });
}

/** The token of `target` from `env`, or a non-retryable failure naming the variable. */
export function forgeToken(target: ForgeTarget, env: NodeJS.ProcessEnv = process.env): string {
  const token = env[target.tokenEnv]?.trim();
  if (!token) {
    throw ApplicationFailure.create({ type: FAILURE.ForgeAuth, nonRetryable: true, message: `${target.tokenEnv} is not set on the worker: landing through pull requests needs a GitHub token there` });
  }
  return token;
}

const timedFetch: typeof fetch = (url, init) => fetch(url, { ...init, signal: init?.signal ?? AbortSignal.timeout(REQUEST_TIMEOUT_MS) });

/** The GitHub forge of `target`, its token from `env`. */
export async function githubForge(target: ForgeTarget, env: NodeJS.ProcessEnv = process.env): Promise<Forge> {
  const token = forgeToken(target, env);
  // @octokit/rest is ESM only; this project is CommonJS: a dynamic import loads it.
  const { Octokit: OctokitClass } = await import('@octokit/rest');
  const octokit: Octokit = new OctokitClass({
    auth: token,
    baseUrl: (target.apiUrl ?? GITHUB_API).replace(/\/+$/, ''),
    userAgent: 'dex',
    request: { fetch: timedFetch },
    // Octokit's own log would print deprecations with request URLs; dex reports through its failures.
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
  const { owner, repo } = target;
  const call = async <T>(doing: string, request: () => Promise<T>): Promise<T> => {
    try {
      return await request();
    } catch (err) {
      throw forgeFailure(err, target, doing);
    }
  };

  const getPullRequest = async (number: number): Promise<ForgePullRequest> => {
    const { data } = await call(`read pull request #${number}`, () => octokit.rest.pulls.get({ owner, repo, pull_number: number }));
    return {
      ...ref(data),
      state: data.state === 'open' ? 'open' : 'closed',
      merged: data.merged,
      mergeSha: data.merged ? data.merge_commit_sha ?? undefined : undefined,
      mergeable: data.mergeable ?? undefined,
    };
  };

  /** The check run `id`, with the app that reports it: GitHub Actions' runs are jobs. */
  const checkRun = (id: string) => call(`read check run ${id}`, () => octokit.rest.checks.get({ owner, repo, check_run_id: Number(id) })).then((r) => r.data);
  const byActions = (run: { app?: { slug?: string } | null }) => run.app?.slug === 'github-actions';

  return {
    async findOpenPullRequest(head, base) {
      const { data } = await call(`list pull requests of ${head}`, () => octokit.rest.pulls.list({ owner, repo, head: `${owner}:${head}`, base, state: 'open', per_page: 10 }));
      const open = data.find((pr) => pr.head.ref === head && pr.base.ref === base);
      return open ? ref(open) : undefined;
    },

    async createPullRequest({ head, base, title, body }) {
      const { data } = await call(`open a pull request of ${head}`, () => octokit.rest.pulls.create({ owner, repo, head, base, title, body }));
      return ref(data);
    },

    getPullRequest,

    async listCheckRuns(sha) {
      const runs = await call(`list the checks of ${sha.slice(0, 12)}`, () =>
        octokit.paginate(octokit.rest.checks.listForRef, { owner, repo, ref: sha, filter: 'latest', per_page: 100 }),
      );
      return runs.map((run): ForgeCheckRun => ({
        id: String(run.id),
        name: run.name,
        headSha: run.head_sha,
        status: run.status === 'completed' ? 'completed' : run.status === 'in_progress' ? 'in_progress' : 'queued',
        conclusion: run.conclusion ?? undefined,
        url: run.html_url ?? undefined,
      }));
    },

    async requiredChecks(branch) {
      const { data } = await call(`read ${branch}'s protection`, () => octokit.rest.repos.getBranch({ owner, repo, branch }));
      const rsc = data.protection?.required_status_checks;
      const names = new Set<string>([...(rsc?.contexts ?? []), ...(rsc?.checks ?? []).map((c) => c.context)]);
      const rules = await call(`read ${branch}'s rules`, () => octokit.rest.repos.getBranchRules({ owner, repo, branch, per_page: 100 }));
      for (const rule of rules.data) {
        if (rule.type !== 'required_status_checks') continue;
        for (const check of rule.parameters?.required_status_checks ?? []) names.add(check.context);
      }
      return [...names];
    },

    async rerunCheck(id) {
      const run = await checkRun(id);
      if (byActions(run)) {
        await call(`re-run job ${id}`, () => octokit.rest.actions.reRunJobForWorkflowRun({ owner, repo, job_id: Number(id) }));
      } else {
        await call(`re-request check run ${id}`, () => octokit.rest.checks.rerequestRun({ owner, repo, check_run_id: Number(id) }));
      }
    },

    async readCheckLog(id) {
      const run = await checkRun(id);
      if (!byActions(run)) return [run.output?.title, run.output?.summary, run.output?.text].filter(Boolean).join('\n\n');
      const { data } = await call(`read job ${id}'s log`, () => octokit.rest.actions.downloadJobLogsForWorkflowRun({ owner, repo, job_id: Number(id) }));
      return typeof data === 'string' ? data : Buffer.from(data as ArrayBuffer).toString('utf8');
    },

    async merge({ number, sha, method, title }: MergeRequest): Promise<MergeOutcome> {
      const before = await getPullRequest(number);
      if (before.merged) return { status: 'merged', sha: before.mergeSha ?? before.headSha };
      try {
        const { data } = await octokit.rest.pulls.merge({ owner, repo, pull_number: number, sha, merge_method: method, commit_title: title });
        return { status: 'merged', sha: data.sha };
      } catch (err) {
        return refusedMerge(err, await getPullRequest(number), target);
      }
    },

    async deleteBranch(branch) {
      try {
        await octokit.rest.git.deleteRef({ owner, repo, ref: `heads/${branch}` });
      } catch (err) {
        // Already gone: GitHub answers 422 "Reference does not exist" (a 404 is the repository or the token).
        if (statusOf(err) === 422) return;
        throw forgeFailure(err, target, `delete branch ${branch}`);
      }
    },
  };
}

/**
 * What a refused merge means. 405 "Base branch was modified" (or a head behind a strict base):
 * `base-moved`, finalize onto the new base and try again; the pull request not mergeable for a
 * conflict: `conflict`; merged meanwhile (a retry after a lost reply): `merged`; any other 405,
 * 409 (the head moved) and 422: `refused`. The token and the forge being down fail as usual.
 */
function refusedMerge(err: unknown, now: ForgePullRequest, target: ForgeTarget): MergeOutcome {
  if (now.merged) return { status: 'merged', sha: now.mergeSha ?? now.headSha };
  const status = statusOf(err);
  const said = messageOf(err) || `HTTP ${status}`;
  if (status === 405 && /base branch was modified|out of date|behind/i.test(said)) return { status: 'base-moved', reason: said };
  if ((status === 405 || status === 409) && now.mergeable === false) return { status: 'conflict', reason: said };
  if (status === 405 || status === 409 || status === 422) return { status: 'refused', reason: said };
  throw forgeFailure(err, target, `merge pull request #${now.number}`);
}

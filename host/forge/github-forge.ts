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
// commit statuses (repos getCombinedStatusForRef) as checks that cannot be re-run;
// required checks from repos getBranch (protection, readable without admin) and getBranchRules
// (rulesets); git deleteRef.

import type { Octokit } from '@octokit/rest';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../core/run/failure-types';
import type { ForgeTarget, MergeOutcome, PullRequestRef } from '../../core/roadmap/pull-request-types';
import { fetchTrusting } from './ca-fetch';
import type { Forge, ForgeCheckRun, ForgePullRequest, MergeRequest } from './forge';
import { forgeCaPem, untrustedForge } from './forge-ca';
import { streamTail, textTail } from './log-tail';
import { rateLimited as isRateLimited, rateLimitWaitMs } from './rate-limit';

const GITHUB_API = 'https://api.github.com';
/** One request's limit: a hung connection fails and Temporal retries the activity. */
const REQUEST_TIMEOUT_MS = 30_000;

const MERGEABILITY_READS = 3;

/** The id prefix of a commit status reported as a check. */
const STATUS = 'status:';

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
  const { message, errors } = (data && typeof data === 'object' ? data : {}) as { message?: unknown; errors?: unknown };
  // A 422's details ("A pull request already exists for …") ride in `errors`.
  const details = Array.isArray(errors) ? errors.map((e: { message?: unknown }) => e?.message).filter((m): m is string => typeof m === 'string') : [];
  const text = [typeof message === 'string' ? message : '', ...details].filter(Boolean).join(': ');
  return text.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/** The headers of a refused request, as Octokit gives them. */
const headersOf = (err: unknown): Record<string, string | undefined> => (err as { response?: { headers?: Record<string, string | undefined> } })?.response?.headers ?? {};

const rateLimited = (err: unknown): boolean => isRateLimited(headersOf(err), messageOf(err));

/**
 * The failure a request's error stands for: one line, naming what to fix and never the token.
 * 401/403: the token (rate limits and a re-run of a job still running excepted); 404: the
 * repository or what was asked for; other 4xx: refused; 5xx, 429, rate limits, a job still
 * running and network errors: retried. A certificate the worker does not trust: refused (forge-ca.ts).
 */
function forgeFailure(err: unknown, target: ForgeTarget, doing: string, token?: string): ApplicationFailure {
  const untrusted = untrustedForge(err, target, doing);
  if (untrusted) return untrusted;
  const status = statusOf(err);
  const repo = `${target.owner}/${target.repo}`;
  // GitHub never echoes a token; a proxy in between might: it goes whatever it says.
  const said = token ? messageOf(err).split(token).join(`[REDACTED:${target.tokenEnv}]`) : messageOf(err);
  const why = said ? `: ${said}` : '';
  if (status === 403 && /already running|in progress/i.test(said)) {
    // A job whose workflow run still runs cannot be re-run yet: later it can.
    return ApplicationFailure.create({ type: FAILURE.ForgeUnavailable, message: `GitHub cannot ${doing} on ${repo} yet (HTTP 403)${why}` });
  }
  if ((status === 401 || status === 403) && !rateLimited(err)) {
    return ApplicationFailure.create({ type: FAILURE.ForgeAuth, nonRetryable: true, message: `GitHub refused the token in ${target.tokenEnv} (HTTP ${status}) to ${doing} on ${repo}${why}` });
  }
  if (status === 404) {
    return ApplicationFailure.create({
      type: FAILURE.ForgeNotFound,
      nonRetryable: true,
      message: `GitHub found nothing to ${doing} on ${repo} (HTTP 404: it does not exist, or the token in ${target.tokenEnv} cannot see it)${why}`,
    });
  }
  if (status !== undefined && status >= 400 && status < 500 && status !== 429 && !rateLimited(err)) {
    return ApplicationFailure.create({ type: FAILURE.ForgeRequestRefused, nonRetryable: true, message: `GitHub refused to ${doing} on ${repo} (HTTP ${status})${why}` });
  }
  const how = status === undefined || status === 500 && !said ? 'could not be reached' : `answered HTTP ${status}`;
  // A rate limit says how long it lasts: the next attempt waits that long (./rate-limit.ts).
  const waitMs = rateLimited(err) ? rateLimitWaitMs(headersOf(err)) : undefined;
  const waits = waitMs !== undefined ? `; a rate limit: the next attempt waits ${Math.round(waitMs / 1000)} s` : '';
  return ApplicationFailure.create({ type: FAILURE.ForgeUnavailable, message: `GitHub ${how} to ${doing} on ${repo}${why}${waits}`, ...(waitMs !== undefined ? { nextRetryDelay: waitMs } : {}) });
}

/** The token of `target` from `env`, or a non-retryable failure naming the variable. */
function forgeToken(target: ForgeTarget, env: NodeJS.ProcessEnv = process.env): string {
  const token = env[target.tokenEnv]?.trim();
  if (!token) {
    throw ApplicationFailure.create({ type: FAILURE.ForgeAuth, nonRetryable: true, message: `${target.tokenEnv} is not set on the worker: landing through pull requests needs a GitHub token there` });
  }
  return token;
}

const timed = (via: typeof fetch): typeof fetch => (url, init) => via(url, { ...init, signal: init?.signal ?? AbortSignal.timeout(REQUEST_TIMEOUT_MS) });

/** An Octokit client of `target`'s forge, its token from `env`, and `call`, which turns a request's error into the failure it stands for. */
export async function githubClient(target: ForgeTarget, env: NodeJS.ProcessEnv = process.env) {
  const token = forgeToken(target, env);
  // @octokit/rest is ESM only; this project is CommonJS: a dynamic import loads it.
  const { Octokit: OctokitClass } = await import('@octokit/rest');
  const octokit: Octokit = new OctokitClass({
    auth: token,
    baseUrl: (target.apiUrl ?? GITHUB_API).replace(/\/+$/, ''),
    userAgent: 'dex',
    // A forge behind a CA of its own (land.pr.caFile): that CA and the machine's, through node:https (ca-fetch.ts).
    request: { fetch: timed(target.caFile ? fetchTrusting(forgeCaPem(target.caFile, env)) : fetch) },
    // Octokit's own log would print deprecations with request URLs; dex reports through its failures.
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
  const call = async <T>(doing: string, request: () => Promise<T>): Promise<T> => {
    try {
      return await request();
    } catch (err) {
      throw forgeFailure(err, target, doing, token);
    }
  };
  return { octokit, call, token };
}

/** The GitHub forge of `target`, its token from `env`. */
export async function githubForge(target: ForgeTarget, env: NodeJS.ProcessEnv = process.env): Promise<Forge> {
  const { octokit, call, token } = await githubClient(target, env);
  const { owner, repo } = target;

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

  /**
   * What a refused merge means. Merged meanwhile (a retry after a lost reply): `merged`. 405 "Base
   * branch was modified" (or a head behind a strict base): `base-moved`, finalize onto the new base
   * and try again. A 405 or 409 of a pull request that conflicts: `conflict` (GitHub says null
   * while it works that out after a push: read again up to 3 times, 1 s apart). Any other 405, 409
   * (the head moved) or 422: `refused`. The token and the forge being down fail as usual.
   */
  async function refusedMerge(err: unknown, number: number): Promise<MergeOutcome> {
    let now = await getPullRequest(number);
    if (now.merged) return { status: 'merged', sha: now.mergeSha ?? now.headSha };
    const status = statusOf(err);
    const said = (messageOf(err) || `HTTP ${status}`).split(token).join(`[REDACTED:${target.tokenEnv}]`);
    if (status === 405 && /base branch was modified|out of date|behind/i.test(said)) return { status: 'base-moved', reason: said };
    if (status === 405 || status === 409) {
      for (let i = 0; i < MERGEABILITY_READS && now.state === 'open' && now.mergeable === undefined; i++) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        now = await getPullRequest(number);
      }
      return { status: now.mergeable === false ? 'conflict' : 'refused', reason: said };
    }
    if (status === 422) return { status: 'refused', reason: said };
    throw forgeFailure(err, target, `merge pull request #${number}`, token);
  }

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
      const checks = runs.map((run): ForgeCheckRun => ({
        id: String(run.id),
        name: run.name,
        headSha: run.head_sha,
        status: run.status === 'completed' ? 'completed' : run.status === 'in_progress' ? 'in_progress' : 'queued',
        conclusion: run.conclusion ?? undefined,
        url: run.html_url ?? undefined,
        startedAt: run.started_at ?? undefined,
        completedAt: run.completed_at ?? undefined,
      }));
      // Commit statuses (CI that reports through the older status API) count as checks too: a
      // required context may be one. Their ids say so: `status:<sha>:<id>`. dex cannot re-run one.
      const { data } = await call(`read the statuses of ${sha.slice(0, 12)}`, () => octokit.rest.repos.getCombinedStatusForRef({ owner, repo, ref: sha, per_page: 100 }));
      for (const st of data.statuses) {
        if (checks.some((c) => c.name === st.context)) continue;
        checks.push({
          id: `${STATUS}${sha}:${st.id}`, name: st.context, headSha: sha,
          status: st.state === 'pending' ? 'in_progress' : 'completed',
          conclusion: st.state === 'pending' ? undefined : st.state,
          url: st.target_url ?? undefined,
          rerunnable: false,
        });
      }
      return checks;
    },

    async requiredChecks(branch) {
      const { data } = await call(`read ${branch}'s protection`, () => octokit.rest.repos.getBranch({ owner, repo, branch }));
      const rsc = data.protection?.required_status_checks;
      const names = new Set<string>([...(rsc?.contexts ?? []), ...(rsc?.checks ?? []).map((c) => c.context)]);
      // Rulesets: a GitHub Enterprise Server older than 3.9 has no such endpoint (404): protection alone then.
      const rules = await octokit.rest.repos.getBranchRules({ owner, repo, branch, per_page: 100 }).catch((err: unknown) => {
        if (statusOf(err) === 404) return { data: [] };
        throw forgeFailure(err, target, `read ${branch}'s rules`, token);
      });
      for (const rule of rules.data) {
        if (rule.type !== 'required_status_checks') continue;
        for (const check of rule.parameters?.required_status_checks ?? []) names.add(check.context);
      }
      return [...names];
    },

    async rerunCheck(id) {
      // A commit status cannot be re-run through GitHub: the CI that set it decides; the next read shows it as it is.
      if (id.startsWith(STATUS)) return;
      const run = await checkRun(id);
      if (byActions(run)) {
        await call(`re-run job ${id}`, () => octokit.rest.actions.reRunJobForWorkflowRun({ owner, repo, job_id: Number(id) }));
      } else {
        await call(`re-request check run ${id}`, () => octokit.rest.checks.rerequestRun({ owner, repo, check_run_id: Number(id) }));
      }
    },

    async readCheckLog(id, maxBytes) {
      if (id.startsWith(STATUS)) {
        const [sha, statusId] = id.slice(STATUS.length).split(':');
        const { data } = await call(`read the statuses of ${sha.slice(0, 12)}`, () => octokit.rest.repos.getCombinedStatusForRef({ owner, repo, ref: sha, per_page: 100 }));
        const st = data.statuses.find((x) => String(x.id) === statusId);
        return textTail(st ? `commit status ${st.context}: ${st.state}${st.description ? `: ${st.description}` : ''}${st.target_url ? `\n${st.target_url}` : ''}` : '', maxBytes);
      }
      const run = await checkRun(id);
      if (!byActions(run)) return textTail([run.output?.title, run.output?.summary, run.output?.text].filter(Boolean).join('\n\n'), maxBytes);
      // The log's body as a stream (GitHub answers with a redirect to it), read to its end keeping only the tail.
      return call(`read job ${id}'s log`, async () => {
        const { data } = await octokit.rest.actions.downloadJobLogsForWorkflowRun({ owner, repo, job_id: Number(id), request: { parseSuccessResponseBody: false } });
        const body = data as unknown;
        if (typeof body === 'string') return textTail(body, maxBytes);
        return body ? streamTail(body as AsyncIterable<Uint8Array>, maxBytes) : { text: '', droppedBytes: 0 };
      });
    },

    async merge({ number, sha, method, title }: MergeRequest): Promise<MergeOutcome> {
      const before = await getPullRequest(number);
      if (before.merged) return { status: 'merged', sha: before.mergeSha ?? before.headSha };
      try {
        const { data } = await octokit.rest.pulls.merge({ owner, repo, pull_number: number, sha, merge_method: method, commit_title: title });
        return { status: 'merged', sha: data.sha };
      } catch (err) {
        return refusedMerge(err, number);
      }
    },

    async deleteBranch(branch) {
      try {
        await octokit.rest.git.deleteRef({ owner, repo, ref: `heads/${branch}` });
      } catch (err) {
        // Already gone: GitHub answers 422 "Reference does not exist" (a 404 is the repository or the token).
        if (statusOf(err) === 422) return;
        throw forgeFailure(err, target, `delete branch ${branch}`, token);
      }
    },
  };
}

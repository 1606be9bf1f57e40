// The fake forge's REST routes (test/support/forge/fake-forge.ts): GitHub's paths, status codes, messages and
// response shapes (trimmed to the fields a client reads), answered from the bare repository and the
// fake's CI. Merges follow GitHub's rules: pinned to `sha` (409 when the head moved), refused while
// conflicting (405 not mergeable), behind a strict base (405 "Base branch was modified") or short of
// a required check (405), else a real commit moves the base.

import type { RestEndpointMethodTypes } from '@octokit/rest';
import type { FakeCheckRun } from './fake-forge-ci';
import type { FakeForge, FakeStatus, PullRecord } from './fake-forge-types';
import { conflicts, git, isAncestor, mergeCommit, moveRef, revParse } from './fake-forge-git';
import { pageOf, type Served } from './fake-forge-rest';

/** What GitHub answers, as Octokit types it (`satisfies Served<…>`). */
type Api = RestEndpointMethodTypes;

export interface ApiContext {
  forge: FakeForge;
  origin: string;
  takeMergeHook: () => (() => Promise<unknown>) | undefined;
  created: () => number;
}

export type ApiAnswer = { status: number; body?: unknown; redirect?: string; headers?: Record<string, string> };

const NOT_FOUND: ApiAnswer = { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } };
const invalid = (message: string, errors: unknown[] = []): ApiAnswer => ({ status: 422, body: { message, errors, documentation_url: 'https://docs.github.com/rest' } });

export async function routeApi(ctx: ApiContext, method: string, path: string, query: URLSearchParams, body: Record<string, unknown>): Promise<ApiAnswer> {
  const { forge } = ctx;
  const prefix = `/repos/${forge.owner}/${forge.repo}`;
  if (method === 'GET' && path === '/user') return { status: 200, body: forge.reviews.authenticated() };
  if (!path.startsWith(prefix)) return NOT_FOUND;
  // Octokit encodes a `/` in a path parameter (a ref, a branch) as %2F; GitHub decodes it.
  const rest = decodeURIComponent(path.slice(prefix.length));
  const route = (pattern: RegExp, verb: string) => (method === verb ? pattern.exec(rest) : null);
  let m: RegExpExecArray | null;

  if (route(/^$/, 'GET')) return { status: 200, body: repoJson(ctx) };
  const aboutIssuesOrReviews = forge.issues.route(method, rest, query, body) ?? forge.reviews.route(method, rest, query, body);
  if (aboutIssuesOrReviews) return aboutIssuesOrReviews;
  if (route(/^\/pulls$/, 'GET')) {
    const state = query.get('state') ?? 'open';
    const head = query.get('head');
    const base = query.get('base');
    const found = forge.pulls.filter(
      (p) => (state === 'all' || p.state === state) && (!head || head === `${forge.owner}:${p.head}`) && (!base || base === p.base),
    );
    return pullList(ctx, rest, query, found);
  }
  if (route(/^\/pulls$/, 'POST')) return createPull(ctx, body);
  if ((m = route(/^\/pulls\/(\d+)$/, 'GET'))) {
    const pull = forge.pulls[Number(m[1]) - 1];
    return pull ? { status: 200, body: await pullJson(ctx, pull, true) } : NOT_FOUND;
  }
  if ((m = route(/^\/pulls\/(\d+)\/merge$/, 'PUT'))) {
    const pull = forge.pulls[Number(m[1]) - 1];
    return pull ? mergePull(ctx, pull, body) : NOT_FOUND;
  }
  if ((m = route(/^\/commits\/([^/]+)\/check-runs$/, 'GET'))) {
    const sha = await revParse(forge.bare, m[1]);
    if (!sha) return { status: 422, body: { message: `No commit found for SHA: ${m[1]}` } };
    forge.ci.start(sha);
    const runs = forge.ci.onSha(sha, query.get('filter') === 'all' ? 'all' : 'latest');
    const name = query.get('check_name');
    const shown = runs.filter((r) => !name || r.name === name);
    return { status: 200, body: { total_count: shown.length, check_runs: shown.map((r) => checkRunJson(ctx, r)) } satisfies Served<Api['checks']['listForRef']['response']['data']> };
  }
  if ((m = route(/^\/commits\/([^/]+)\/pulls$/, 'GET'))) {
    // The pull requests whose head is at the commit, open or closed (a branch's later push moves an open one's head on).
    const sha = await revParse(forge.bare, m[1]);
    if (!sha) return { status: 422, body: { message: `No commit found for SHA: ${m[1]}` } };
    for (const pull of forge.pulls) await refreshHead(ctx, pull);
    return pullList(ctx, rest, query, forge.pulls.filter((p) => p.headSha === sha));
  }
  if ((m = route(/^\/commits\/([^/]+)\/status$/, 'GET'))) {
    const sha = await revParse(forge.bare, m[1]);
    if (!sha) return { status: 422, body: { message: `No commit found for SHA: ${m[1]}` } };
    const latest = latestStatuses(forge, sha);
    const state = latest.some((st) => st.state === 'failure' || st.state === 'error') ? 'failure' : latest.every((st) => st.state === 'success') && latest.length ? 'success' : 'pending';
    return { status: 200, body: { state, sha, total_count: latest.length, statuses: latest.map((st) => statusJson(ctx, st)), repository: repoJson(ctx) } satisfies Served<Api['repos']['getCombinedStatusForRef']['response']['data']> };
  }
  if ((m = route(/^\/statuses\/([0-9a-f]{40})$/, 'POST'))) {
    if (!['pending', 'success', 'failure', 'error'].includes(String(body.state))) return invalid('Validation Failed', [{ resource: 'Status', field: 'state', code: 'custom' }]);
    const st = forge.setStatus(m[1], String(body.context ?? 'default'), body.state as FakeStatus['state'], body.description as string | undefined);
    return { status: 201, body: statusJson(ctx, st) };
  }
  if ((m = route(/^\/check-runs\/(\d+)$/, 'GET'))) {
    const run = forge.ci.byId(Number(m[1]));
    return run ? { status: 200, body: checkRunJson(ctx, run) } : NOT_FOUND;
  }
  if ((m = route(/^\/check-runs\/(\d+)\/rerequest$/, 'POST'))) {
    const run = forge.ci.byId(Number(m[1]));
    if (!run) return NOT_FOUND;
    // GitHub: "OAuth apps and personal access tokens (classic) cannot use this endpoint"; Actions' jobs re-run through actions/jobs.
    if (run.app === 'github-actions') return { status: 403, body: { message: 'Resource not accessible by personal access token' } };
    forge.ci.rerun(run.id);
    return { status: 201, body: {} };
  }
  if ((m = route(/^\/actions\/jobs\/(\d+)\/rerun$/, 'POST'))) {
    const run = forge.ci.byId(Number(m[1]));
    if (!run || run.app !== 'github-actions') return NOT_FOUND;
    if (run.status !== 'completed') return { status: 403, body: { message: 'This job is already running.' } };
    forge.ci.rerun(run.id);
    return { status: 201, body: {} };
  }
  if ((m = route(/^\/actions\/jobs\/(\d+)\/logs$/, 'GET'))) {
    const run = forge.ci.byId(Number(m[1]));
    if (!run || run.app !== 'github-actions') return NOT_FOUND;
    return { status: 302, redirect: `${ctx.origin}/_job-logs/${run.id}` };
  }
  if ((m = route(/^\/branches\/(.+)$/, 'GET'))) {
    const branch = m[1];
    const sha = await revParse(forge.bare, `refs/heads/${branch}`);
    if (!sha) return { status: 404, body: { message: 'Branch not found' } };
    const rules = branch === forge.base && !forge.protection?.ruleset ? forge.protection : null;
    const protection = rules
      ? { enabled: true, required_status_checks: { enforcement_level: 'non_admins', contexts: rules.requiredChecks, checks: rules.requiredChecks.map((context) => ({ context, app_id: null })), strict: rules.strict } }
      : { enabled: false, required_status_checks: { enforcement_level: 'off', contexts: [], checks: [] } };
    const data = { name: branch, commit: { sha }, protected: Boolean(rules), protection, protection_url: `${ctx.forge.apiUrl}${prefix}/branches/${branch}/protection` };
    return { status: 200, body: data satisfies Served<Api['repos']['getBranch']['response']['data']> };
  }
  if ((m = route(/^\/rules\/branches\/(.+)$/, 'GET'))) {
    const rules = m[1] === forge.base && forge.protection?.ruleset ? forge.protection : null;
    const data = rules
      ? [{
          type: 'required_status_checks' as const, ruleset_source_type: 'Repository' as const, ruleset_source: `${forge.owner}/${forge.repo}`, ruleset_id: 42,
          parameters: { strict_required_status_checks_policy: rules.strict, required_status_checks: rules.requiredChecks.map((context) => ({ context })) },
        }]
      : [];
    return { status: 200, body: data satisfies Served<Api['repos']['getBranchRules']['response']['data']> };
  }
  if ((m = route(/^\/git\/refs\/heads\/(.+)$/, 'DELETE'))) {
    const branch = m[1];
    const sha = await revParse(forge.bare, `refs/heads/${branch}`);
    if (!sha) return invalid('Reference does not exist');
    await git(forge.bare, ['update-ref', '-d', `refs/heads/${branch}`, sha]);
    return { status: 204 };
  }
  return NOT_FOUND;
}

async function createPull(ctx: ApiContext, body: Record<string, unknown>): Promise<ApiAnswer> {
  const { forge } = ctx;
  const head = String(body.head ?? '').replace(`${forge.owner}:`, '');
  const base = String(body.base ?? '');
  if (!body.title) return invalid('Validation Failed', [{ resource: 'PullRequest', field: 'title', code: 'missing_field' }]);
  const headSha = await revParse(forge.bare, `refs/heads/${head}`);
  const baseSha = await revParse(forge.bare, `refs/heads/${base}`);
  if (!headSha) return invalid('Validation Failed', [{ resource: 'PullRequest', field: 'head', code: 'invalid' }]);
  if (!baseSha) return invalid('Validation Failed', [{ resource: 'PullRequest', field: 'base', code: 'invalid' }]);
  if (forge.pulls.some((p) => p.state === 'open' && p.head === head && p.base === base)) {
    return invalid('Validation Failed', [{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${forge.owner}:${head}.` }]);
  }
  if (await isAncestor(forge.bare, headSha, baseSha)) {
    return invalid('Validation Failed', [{ resource: 'PullRequest', code: 'custom', message: `No commits between ${base} and ${head}` }]);
  }
  const pull: PullRecord = {
    number: forge.pulls.length + 1, head, base, title: String(body.title), body: String(body.body ?? ''),
    state: 'open', merged: false, mergeSha: null, mergedAt: null, createdAt: new Date().toISOString(), headSha,
  };
  forge.pulls.push(pull);
  ctx.created();
  forge.ci.start(headSha);
  return { status: 201, body: await pullJson(ctx, pull, true) };
}

/** Why `pull` cannot be merged now (GitHub's 405 message and mergeable_state), or undefined. */
async function blocked(ctx: ApiContext, pull: PullRecord, baseSha: string): Promise<{ message: string; state: string; conflict?: boolean } | undefined> {
  const { forge } = ctx;
  if (await conflicts(forge.bare, baseSha, pull.headSha)) return { message: 'Pull Request is not mergeable', state: 'dirty', conflict: true };
  const rules = pull.base === forge.base ? forge.protection : null;
  if (rules?.strict && !(await isAncestor(forge.bare, baseSha, pull.headSha))) {
    return { message: 'Base branch was modified. Review and try the merge again.', state: 'behind' };
  }
  const runs: { name: string; status: string; conclusion: string | null }[] = [
    ...forge.ci.onSha(pull.headSha),
    ...latestStatuses(forge, pull.headSha).map((st) => ({ name: st.context, status: st.state === 'pending' ? 'in_progress' : 'completed', conclusion: st.state })),
  ];
  for (const name of rules?.requiredChecks ?? []) {
    const run = runs.find((r) => r.name === name);
    if (!run || run.status !== 'completed') return { message: `Required status check "${name}" is expected.`, state: 'blocked' };
    if (run.conclusion !== 'success') return { message: `Required status check "${name}" is failing.`, state: 'blocked' };
  }
  return undefined;
}

async function mergePull(ctx: ApiContext, pull: PullRecord, body: Record<string, unknown>): Promise<ApiAnswer> {
  const { forge } = ctx;
  await ctx.takeMergeHook()?.();
  if (pull.state !== 'open') return { status: 405, body: { message: 'Pull Request is not mergeable' } };
  await refreshHead(ctx, pull);
  if (body.sha && body.sha !== pull.headSha) return { status: 409, body: { message: 'Head branch was modified. Review and try the merge again.' } };
  const baseSha = await revParse(forge.bare, `refs/heads/${pull.base}`);
  if (!baseSha) return { status: 422, body: { message: 'Base branch does not exist' } };
  const why = await blocked(ctx, pull, baseSha);
  if (why) return { status: 405, body: { message: why.message } };
  const method = String(body.merge_method ?? 'merge');
  if (!['merge', 'squash', 'rebase'].includes(method)) return invalid('Validation Failed', [{ resource: 'PullRequest', field: 'merge_method', code: 'invalid' }]);
  const title = String(body.commit_title ?? `Merge pull request #${pull.number} from ${forge.owner}/${pull.head}`);
  const sha = await mergeCommit(forge.bare, baseSha, pull.headSha, method, `${title}\n\n${String(body.commit_message ?? pull.title)}`);
  if (!sha) return { status: 405, body: { message: 'Pull Request is not mergeable' } };
  const moved = await moveRef(forge.bare, pull.base, sha, baseSha).then(() => false, () => true);
  if (moved) return { status: 405, body: { message: 'Base branch was modified. Review and try the merge again.' } };
  Object.assign(pull, { state: 'closed', merged: true, mergeSha: sha, mergedAt: new Date().toISOString() });
  ctx.forge.issues.merged(pull.body);
  return { status: 200, body: { sha, merged: true, message: 'Pull Request successfully merged' } satisfies Served<Api['pulls']['merge']['response']['data']> };
}

async function refreshHead(ctx: ApiContext, pull: PullRecord): Promise<void> {
  if (pull.state !== 'open') return;
  pull.headSha = (await revParse(ctx.forge.bare, `refs/heads/${pull.head}`)) ?? pull.headSha;
}

function repoJson({ forge, origin }: ApiContext) {
  const owner = { login: forge.owner, id: 1, type: 'Organization', html_url: `${origin}/${forge.owner}` };
  return {
    id: 1296269, node_id: 'R_fake', name: forge.repo, full_name: `${forge.owner}/${forge.repo}`, owner, private: true,
    html_url: `${origin}/${forge.owner}/${forge.repo}`, clone_url: forge.remoteUrl, default_branch: forge.base,
  } satisfies Served<Api['repos']['get']['response']['data']>;
}

/** A list of pull requests (at `rest`) as GitHub answers it: newest first, each as the list endpoints show it, a page at a time. */
async function pullList(ctx: ApiContext, rest: string, query: URLSearchParams, pulls: PullRecord[]): Promise<ApiAnswer> {
  const { forge } = ctx;
  return pageOf(`${forge.apiUrl}/repos/${forge.owner}/${forge.repo}${rest}`, query, await Promise.all([...pulls].reverse().map((p) => pullJson(ctx, p, false))));
}

async function pullJson(ctx: ApiContext, pull: PullRecord, full: boolean) {
  const { forge, origin } = ctx;
  await refreshHead(ctx, pull);
  const baseSha = (await revParse(forge.bare, `refs/heads/${pull.base}`)) ?? '';
  const repo = repoJson(ctx);
  const user = { login: 'dex-bot', id: 2, type: 'User' };
  const json = {
    url: `${forge.apiUrl}/repos/${forge.owner}/${forge.repo}/pulls/${pull.number}`, id: 1000 + pull.number, node_id: `PR_${pull.number}`,
    html_url: `${origin}/${forge.owner}/${forge.repo}/pull/${pull.number}`, number: pull.number, state: pull.state, locked: false,
    title: pull.title, body: pull.body, user, created_at: pull.createdAt, updated_at: pull.mergedAt ?? pull.createdAt,
    closed_at: pull.mergedAt, merged_at: pull.mergedAt, merge_commit_sha: pull.mergeSha, draft: false,
    head: { label: `${forge.owner}:${pull.head}`, ref: pull.head, sha: pull.headSha, user, repo },
    base: { label: `${forge.owner}:${pull.base}`, ref: pull.base, sha: baseSha, user, repo },
  } satisfies Served<Api['pulls']['list']['response']['data'][number]>;
  if (!full) return json;
  const why = pull.state === 'open' && baseSha ? await blocked(ctx, pull, baseSha) : undefined;
  // As GitHub: the first read after the head or the base moved starts the background job and says null.
  const pair = `${baseSha}:${pull.headSha}`;
  const known = pull.state === 'open' && pull.mergeabilityOf === pair;
  pull.mergeabilityOf = pair;
  return {
    ...json, merged: pull.merged, mergeable: known ? !why?.conflict : null, rebaseable: known ? !why?.conflict : null,
    mergeable_state: known ? why?.state ?? 'clean' : 'unknown', merged_by: pull.merged ? user : null,
    comments: 0, review_comments: 0, commits: 1, additions: 0, deletions: 0, changed_files: 0,
  } satisfies Served<Api['pulls']['get']['response']['data']>;
}

function checkRunJson({ forge, origin }: ApiContext, run: FakeCheckRun) {
  const actions = run.app === 'github-actions';
  const app = { id: actions ? 15368 : 99, slug: run.app, name: actions ? 'GitHub Actions' : run.app, owner: { login: actions ? 'github' : forge.owner } };
  const done = run.status === 'completed';
  return {
    id: run.id, node_id: `CR_${run.id}`, head_sha: run.headSha, external_id: String(run.id), name: run.name, status: run.status,
    conclusion: run.conclusion, started_at: run.startedAt, completed_at: run.completedAt,
    url: `${forge.apiUrl}/repos/${forge.owner}/${forge.repo}/check-runs/${run.id}`,
    html_url: `${origin}/${forge.owner}/${forge.repo}/${actions ? `actions/runs/1/job/${run.id}` : `runs/${run.id}`}`,
    details_url: `${origin}/${forge.owner}/${forge.repo}/runs/${run.id}`,
    output: {
      title: done ? `${run.name} ${run.conclusion}` : null, summary: done ? `attempt ${run.attempt}` : null,
      text: actions || !done ? null : run.log, annotations_count: 0, annotations_url: '',
    },
    check_suite: { id: 7_000_000 + run.attempt }, app, pull_requests: [],
  } satisfies Served<Api['checks']['get']['response']['data']>;
}

/** The newest status of each context on `sha` (GitHub's combined status). */
function latestStatuses(forge: FakeForge, sha: string): FakeStatus[] {
  const latest = new Map<string, FakeStatus>();
  for (const st of forge.statuses) if (st.sha === sha) latest.set(st.context, st);
  return [...latest.values()];
}

function statusJson({ forge, origin }: ApiContext, st: FakeStatus) {
  return {
    id: st.id, node_id: `SC_${st.id}`, url: `${forge.apiUrl}/repos/${forge.owner}/${forge.repo}/statuses/${st.sha}`, state: st.state,
    description: st.description, target_url: `${origin}/ci/${st.id}`, context: st.context, created_at: st.createdAt, updated_at: st.createdAt,
    avatar_url: null, creator: { login: 'ci-bot', id: 3, type: 'Bot' },
  } satisfies Served<Api['repos']['createCommitStatus']['response']['data']>;
}

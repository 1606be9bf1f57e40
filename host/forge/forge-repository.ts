// Whether a forge repository exists and the worker's token can read it (docs/fleet.md#the-check-at-the-start):
// one GET /repos/{owner}/{repo}, asked by `dex task`/`dex run` before anything starts and by whatever
// makes a worker's mirror. The token goes in the Authorization header and nowhere else; a failure
// is written from the status and GitHub's own message, never the request. Node's https, not fetch,
// so a forge with a private CA can be trusted through `caFile` alone.

import { readFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../core/run/failure-types';
import type { ForgeRepository } from '../../core/fleet/repo-locator';
import { untrustedChain } from './forge-ca';

/** One request's limit: a forge that hangs is unreachable, not slow. */
const REQUEST_TIMEOUT_MS = 30_000;
/** How much of an answer is read: a repository's JSON is a few kilobytes. */
const MAX_ANSWER_BYTES = 1 << 20;

/** What the check learns of a repository it can read. */
interface ForgeRepositoryFacts {
  defaultBranch: string;
}

/** How the worker reaches the forge: its environment (the token) and the forge's CA, when private. */
export interface ForgeReach {
  env?: NodeJS.ProcessEnv;
  /** A PEM file of the CA the forge's certificate is signed by (added to Node's own). */
  caFile?: string;
}

type Answer = { status: number; headers: IncomingMessage['headers']; body: string };

async function get(url: URL, headers: Record<string, string>, caFile?: string): Promise<Answer> {
  const ca = caFile ? await readFile(caFile) : undefined;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'GET', headers, ...(ca ? { ca } : {}), timeout: REQUEST_TIMEOUT_MS }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (body.length < MAX_ANSWER_BYTES) body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
    req.on('error', reject);
    req.end();
  });
}

/** GitHub's `message` of an answer, one line, the token replaced by its variable's name should a proxy echo it. */
function messageOf(body: string, token: string, tokenEnv: string): string {
  let message: unknown;
  try {
    message = (JSON.parse(body) as { message?: unknown }).message;
  } catch {
    message = undefined;
  }
  return typeof message === 'string' ? message.split(token).join(`[REDACTED:${tokenEnv}]`).replace(/\s+/g, ' ').trim().slice(0, 200) : '';
}

/** The token of `repo` from `env`; `ForgeAuth` without retry, naming the variable, when it is not set. */
export function forgeToken(repo: ForgeRepository, env: NodeJS.ProcessEnv = process.env): string {
  const token = env[repo.tokenEnv]?.trim();
  if (token) return token;
  throw ApplicationFailure.create({ type: FAILURE.ForgeAuth, nonRetryable: true, message: `dex needs a token in ${repo.tokenEnv} to reach ${repo.owner}/${repo.repo} on ${repo.host}` });
}

/**
 * The repository's facts, or an ApplicationFailure: the token missing or refused (401, 403 but a
 * rate limit) is `ForgeAuth`, a repository the token cannot see (404) `ForgeNotFound`, a
 * certificate of a CA the worker does not trust `ForgeUntrusted`, none retried; a rate limit, 5xx
 * and a forge out of reach are `ForgeUnavailable` and retry.
 */
export async function readForgeRepository(repo: ForgeRepository, reach: ForgeReach = {}): Promise<ForgeRepositoryFacts> {
  const name = `${repo.owner}/${repo.repo}`;
  const token = forgeToken(repo, reach.env);
  const url = new URL(`${repo.apiUrl}/repos/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.repo)}`);
  const headers = { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json', 'user-agent': 'dex' };
  let answer: Answer;
  try {
    answer = await get(url, headers, reach.caFile);
  } catch (err) {
    const why = (err instanceof Error ? err.message : String(err)).split(token).join(`[REDACTED:${repo.tokenEnv}]`);
    if (untrustedChain(err)) {
      // A CA the worker does not trust stays untrusted until someone names it (caFile): retrying cannot mend it.
      throw ApplicationFailure.create({ type: FAILURE.ForgeUntrusted, nonRetryable: true, message: `${repo.host}'s certificate did not verify for ${name} (${why})` });
    }
    throw ApplicationFailure.create({ type: FAILURE.ForgeUnavailable, message: `${repo.host} could not be reached to read ${name} (${why})` });
  }
  const said = messageOf(answer.body, token, repo.tokenEnv);
  const status = `HTTP ${answer.status}${said ? `: ${said}` : ''}`;
  const rateLimited = answer.headers['x-ratelimit-remaining'] === '0' || answer.headers['retry-after'] !== undefined || /rate limit/i.test(said);
  if ((answer.status === 401 || answer.status === 403) && !rateLimited) {
    throw ApplicationFailure.create({ type: FAILURE.ForgeAuth, nonRetryable: true, message: `${repo.host} refused the token in ${repo.tokenEnv} for ${name} (${status})` });
  }
  if (answer.status === 404) {
    throw ApplicationFailure.create({
      type: FAILURE.ForgeNotFound,
      nonRetryable: true,
      message: `${name} was not found on ${repo.host} (HTTP 404: it does not exist, or the token in ${repo.tokenEnv} cannot read it)`,
    });
  }
  const branch = answer.status === 200 ? defaultBranchOf(answer.body) : undefined;
  if (branch !== undefined) return { defaultBranch: branch };
  const refused = answer.status >= 400 && answer.status < 500 && answer.status !== 429 && !rateLimited;
  throw ApplicationFailure.create({
    type: refused ? FAILURE.ForgeRequestRefused : FAILURE.ForgeUnavailable,
    nonRetryable: refused,
    message: `${repo.host} answered ${status} to reading ${name}`,
  });
}

/** The `default_branch` of a repository's JSON; undefined when the answer is not one (a proxy's page, cut short). */
function defaultBranchOf(body: string): string | undefined {
  try {
    const branch = (JSON.parse(body) as { default_branch?: unknown }).default_branch;
    return typeof branch === 'string' ? branch : undefined;
  } catch {
    return undefined;
  }
}

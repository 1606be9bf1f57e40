import { isAbsolute } from 'node:path';
import type { PullRequestLanding } from '../../core/roadmap/pull-request-types';
import { InvalidInput } from '../../core/run/invalid-input';
import { caFileProblem } from '../../host/forge/forge-ca';
import { isSecretName } from '../../host/secrets/secret-values';
import { isRecord, knownKeys, type Fail } from './config-section';

/**
 * `land.pr:` of dex.config.yaml (docs/landing-through-prs.md#configuration): read from the file
 * here, then completed when a roadmap starts (client/requests/roadmap-request.ts) with the
 * repository the remote's URL names and a check that the forge token is set.
 */

/** `land.pr:` as the file gives it: everything but the repository, which the remote's URL names. */
export type PullRequestSettings = Omit<PullRequestLanding, 'owner' | 'repo'>;

const PR_KEYS = ['forge', 'tokenEnv', 'profile', 'checks', 'fixAttempts', 'ciTimeoutMinutes', 'mergeMethod', 'apiUrl', 'caFile'];
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DEFAULT_TOKEN_ENV = 'GITHUB_TOKEN';
/** Where the token's permissions and the webhook are described, for the one-line errors. */
const DOC = 'docs/landing-through-prs.md';

/** Checks `land.pr:` (absent: every default) and fills in the defaults of PullRequestLanding. */
export function parsePullRequestSettings(pr: unknown, fail: Fail): PullRequestSettings {
  const v = pr ?? {};
  if (!isRecord(v)) fail('land.pr', `must be a map with ${PR_KEYS.join(', ')}`);
  knownKeys(v, PR_KEYS, 'land.pr.', fail);
  const oneOf = <T extends string>(key: string, values: readonly T[], fallback: T): T => {
    if (v[key] === undefined) return fallback;
    if (!values.includes(v[key] as T)) fail(`land.pr.${key}`, `must be ${values.join(' or ')}`);
    return v[key] as T;
  };
  const whole = (key: string, min: number, fallback: number): number => {
    if (v[key] === undefined) return fallback;
    if (!Number.isInteger(v[key]) || (v[key] as number) < min) fail(`land.pr.${key}`, `must be a whole number of ${min} or more`);
    return v[key] as number;
  };
  if (v.forge !== undefined && v.forge !== 'github') fail('land.pr.forge', `is ${JSON.stringify(v.forge)}: only github is supported today`);
  const tokenEnv = v.tokenEnv ?? DEFAULT_TOKEN_ENV;
  if (typeof tokenEnv !== 'string' || !ENV_NAME.test(tokenEnv)) fail('land.pr.tokenEnv', 'must be the name of an environment variable');
  // The worker redacts the values of variables so named (host/secrets/secret-values.ts); another name would reach logs unredacted.
  if (!isSecretName(tokenEnv)) fail('land.pr.tokenEnv', `${tokenEnv} is not named like a secret, so dex would not redact it: use a name with TOKEN in it`);
  const settings: PullRequestSettings = {
    forge: 'github',
    tokenEnv,
    profile: oneOf('profile', ['auto', 'review'] as const, 'auto'),
    fixAttempts: whole('fixAttempts', 0, 2),
    ciTimeoutMinutes: whole('ciTimeoutMinutes', 1, 1440),
    mergeMethod: oneOf('mergeMethod', ['merge', 'squash', 'rebase'] as const, 'merge'),
  };
  if (v.checks !== undefined) {
    const ok = Array.isArray(v.checks) && v.checks.length > 0 && v.checks.every((c) => typeof c === 'string' && c.trim());
    if (!ok) fail('land.pr.checks', 'must be a list of check names (leave it out to wait for the required checks)');
    settings.checks = v.checks as string[];
  }
  if (v.apiUrl !== undefined) settings.apiUrl = apiUrlOf(v.apiUrl, fail);
  if (v.caFile !== undefined) {
    // Absolute: the worker reads it, from no folder in particular (docs/landing-through-prs.md#a-forge-behind-its-own-ca).
    if (typeof v.caFile !== 'string' || !isAbsolute(v.caFile)) fail('land.pr.caFile', 'must be the absolute path of the forge\'s CA certificate (PEM)');
    settings.caFile = v.caFile;
  }
  return settings;
}

function apiUrlOf(value: unknown, fail: Fail): string {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.username || url.password || url.search || url.hash) {
    fail('land.pr.apiUrl', 'must be the forge API\'s http(s) URL, such as https://github.example.com/api/v3');
  }
  return url.href.replace(/\/+$/, '');
}

/** Fails when `sandbox.env` or `setup.env` would hand the forge token to a command dex runs for the agent or the project. */
export function tokenStaysWithWorker(tokenEnv: string, lists: Record<string, readonly string[] | undefined>, fail: Fail): void {
  for (const [key, names] of Object.entries(lists)) {
    if (names?.includes(tokenEnv)) fail(key, `may not pass ${tokenEnv}: the forge token of land.pr stays with the worker (${DOC}#the-forge-token)`);
  }
}

/** A remote URL for a message: without a password or token a person put in it. */
function shown(url: string): string {
  return url.replace(/^([a-z+]+:\/\/)[^@/]*@/i, '$1***@');
}

/** The host name and path a remote URL names: https://, http://, ssh:// and git@host:path (scp-like) forms; undefined for a local path. */
function hostAndPath(url: string): { hostname: string; path: string } | undefined {
  const scp = /^(?:[^@/:]+@)?([^/:]+):(?!\/\/)(.+)$/.exec(url);
  if (scp) return { hostname: scp[1], path: scp[2] };
  try {
    const u = new URL(url);
    if (!/^(https?|ssh|git\+ssh|ssh\+git|git):$/.test(u.protocol) || !u.hostname) return undefined;
    return { hostname: u.hostname, path: decodeURIComponent(u.pathname) };
  } catch {
    return undefined;
  }
}

/**
 * The repository on the forge that `url` (the remote `remote`'s) names, on github.com or, with
 * `apiUrl`, on that API's host (by name: git and the API may listen on different ports and
 * schemes, as ssh and https do); anything else is an input error that shows the URL (its password hidden).
 */
export function forgeRepository(remote: string, url: string, apiUrl: string | undefined): { owner: string; repo: string } {
  const api = apiUrl ? new URL(apiUrl) : undefined;
  // github.com's API lives on api.github.com; an Enterprise server (or a test's fake forge) serves both on one host.
  const forgeHost = !api || api.hostname === 'api.github.com' ? 'github.com' : api.hostname;
  const where = forgeHost !== 'github.com' ? `a repository on ${forgeHost} (the host of land.pr.apiUrl)` : 'a github.com repository';
  const bad = (): never => {
    throw new InvalidInput(`dex.config.yaml: land.remote ${remote} is ${shown(url)}, not ${where}: land.mode pr needs OWNER/REPO on the forge`);
  };
  const at = hostAndPath(url.trim()) ?? bad();
  if (at.hostname.toLowerCase() !== forgeHost.toLowerCase()) bad();
  const parts = at.path.replace(/^\/+|\/+$/g, '').replace(/\.git$/, '').split('/');
  if (parts.length !== 2 || !parts.every((p) => /^[\w.-]+$/.test(p) && p !== '.' && p !== '..')) bad();
  return { owner: parts[0], repo: parts[1] };
}

/** The whole PullRequestLanding, once the token is known to be set where dex runs, the CA file (if any) to hold a certificate, and the remote to name a repository on the forge. */
export function pullRequestLanding(settings: PullRequestSettings, remote: string, remoteUrl: string, env: NodeJS.ProcessEnv): PullRequestLanding {
  if (!env[settings.tokenEnv]?.trim()) {
    throw new InvalidInput(
      `dex.config.yaml: land.pr: ${settings.tokenEnv} is not set: the forge token dex opens, watches and merges pull requests with (${DOC}#the-forge-token)`,
    );
  }
  // Read here as the worker will read it (host/forge/forge-ca.ts), so a wrong path stops the run before anything starts.
  const problem = settings.caFile && caFileProblem(settings.caFile);
  if (problem) throw new InvalidInput(`dex.config.yaml: land.pr.caFile: ${settings.caFile} ${problem} (${DOC}#a-forge-behind-its-own-ca)`);
  return { ...settings, ...forgeRepository(remote, remoteUrl, settings.apiUrl) };
}

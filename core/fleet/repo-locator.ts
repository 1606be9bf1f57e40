/**
 * What `--repo` names (docs/fleet.md#the-repository-locator): a local checkout, that host's, or a
 * repository on a forge, which any worker can mirror. Plain data that may travel in a workflow's
 * input: the token is never here, only the name of the variable that holds it on the worker.
 * Pure: the client decides whether text is an existing folder before it asks this module.
 */
import type { ForgeTarget } from '../roadmap/pull-request-types';
import { InvalidInput } from '../run/invalid-input';

/** A repository on a forge: where its API and git are, and where the worker finds the token. */
export interface ForgeRepository extends ForgeTarget {
  kind: 'forge';
  /** The forge's API root: https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise Server. */
  apiUrl: string;
  /** The forge's web and git host as people write it (github.com, ghe.example.com:8443). */
  host: string;
  /** The URL git fetches from, never with a user or token in it: https://HOST/OWNER/NAME.git. */
  gitUrl: string;
}

/** Where a task's repository is: a folder on one host, or a forge repository. */
export type RepoLocator = { kind: 'local'; path: string } | ForgeRepository;

/** What `OWNER/NAME` alone is completed with (DEX_FORGE_API_URL, DEX_FORGE_TOKEN_ENV). */
export interface ForgeDefaults {
  /** @default https://api.github.com */
  apiUrl?: string;
  tokenEnv: string;
}

const GITHUB_API = 'https://api.github.com';
const GITHUB_HOSTS = ['github.com', 'www.github.com'];
/** A GitHub owner or repository name: what its URLs hold (`.` and `..` excepted). */
const NAME = /^[\w.-]+$/;
const SHAPES = 'https://github.com/OWNER/NAME, https://HOST/OWNER/NAME or OWNER/NAME';

const isName = (part: string) => NAME.test(part) && part !== '.' && part !== '..';

/** `owner/name` of `path` (a URL's path or the text itself), a trailing `.git` or `/` allowed; undefined for any other shape. */
function ownerAndName(path: string): { owner: string; repo: string } | undefined {
  const parts = path.replace(/^\/+|\/+$/g, '').replace(/\.git$/, '').split('/');
  return parts.length === 2 && parts.every(isName) ? { owner: parts[0], repo: parts[1] } : undefined;
}

/** The API root `text` names (DEX_FORGE_API_URL): an https URL without user, query or fragment; `name` is what a person set. */
export function forgeApiUrl(text: string, name: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text.trim());
  } catch {
    url = undefined;
  }
  if (!url || url.protocol !== 'https:' || url.username || url.password || url.search || url.hash) {
    throw new InvalidInput(`${name} must be the forge API's https URL, such as https://github.example.com/api/v3`);
  }
  return url.href.replace(/\/+$/, '');
}

/** The web and git host of the forge whose API is at `apiUrl`: api.github.com's is github.com, an Enterprise server's its own. */
const hostOfApi = (apiUrl: string): string => {
  const host = new URL(apiUrl).host;
  return host === 'api.github.com' ? 'github.com' : host;
};

/** `text` with a user or password in a URL hidden, for a message. */
const shown = (text: string): string => text.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1***@');

function forgeRepository(host: string, apiUrl: string, at: { owner: string; repo: string }, tokenEnv: string): ForgeRepository {
  return { kind: 'forge', forge: 'github', apiUrl, tokenEnv, host, owner: at.owner, repo: at.repo, gitUrl: `https://${host}/${at.owner}/${at.repo}.git` };
}

/** The repository an https URL names; bad input (exit 2) when it is not https, carries credentials, or names no OWNER/NAME. */
function fromUrl(text: string, defaults: ForgeDefaults): ForgeRepository {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  const bad = (why: string): never => {
    throw new InvalidInput(`--repo ${shown(text)}: ${why}`);
  };
  if (!url) return bad(`not a URL dex can read: use ${SHAPES}`);
  if (url.protocol !== 'https:') bad('dex reaches a forge repository over https only (https://HOST/OWNER/NAME)');
  if (url.username || url.password) bad(`a forge repository's URL may not carry a user or token: dex reads the token from ${defaults.tokenEnv} on the worker`);
  if (url.search || url.hash) bad('a forge repository is https://HOST/OWNER/NAME, without query or fragment');
  const at = ownerAndName(decodeURIComponent(url.pathname)) ?? bad(`names no repository: use ${SHAPES}`);
  const host = GITHUB_HOSTS.includes(url.hostname) && !url.port ? 'github.com' : url.host;
  // A forge whose API is configured keeps it (an Enterprise server with its API elsewhere); else GitHub's layout.
  const configured = defaults.apiUrl !== undefined && hostOfApi(defaults.apiUrl) === host ? defaults.apiUrl : undefined;
  return forgeRepository(host, configured ?? (host === 'github.com' ? GITHUB_API : `https://${host}/api/v3`), at, defaults.tokenEnv);
}

/** Whether `text` is written as a URL (`scheme://…`): then it is a forge repository or bad input, never a folder. */
export const isUrl = (text: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(text.trim());

/**
 * The forge repository `text` names: an https URL, or `OWNER/NAME` on the forge of `defaults`
 * (github.com unless DEX_FORGE_API_URL names another); undefined when it has neither shape. The
 * caller asks only about text that is not an existing folder (`OWNER/NAME` could be one).
 */
export function parseForgeRepository(text: string, defaults: ForgeDefaults): ForgeRepository | undefined {
  const trimmed = text.trim();
  if (isUrl(trimmed)) return fromUrl(trimmed, defaults);
  const at = /^[^/]+\/[^/]+$/.test(trimmed) ? ownerAndName(trimmed) : undefined;
  if (!at) return undefined;
  const apiUrl = defaults.apiUrl ?? GITHUB_API;
  return forgeRepository(hostOfApi(apiUrl), apiUrl, at, defaults.tokenEnv);
}

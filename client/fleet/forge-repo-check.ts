/**
 * `--repo` naming a forge repository at `dex task` and `dex run` (docs/fleet.md#the-check-at-the-start):
 * checked before anything starts, so a missing token, a repository that does not exist and one the
 * token cannot read are each one line and exit 2, with nothing started and nothing left behind.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { forgeApiUrl, isUrl, parseForgeRepository, type ForgeDefaults, type ForgeRepository, type RepoLocator } from '../../core/fleet/repo-locator';
import { InvalidInput } from '../../core/run/invalid-input';
import { readForgeRepository } from '../../host/forge/forge-repository';
import { caFileProblem } from '../../host/forge/forge-ca';
import { isSecretName } from '../../host/secrets/secret-values';

const DEFAULT_TOKEN_ENV = 'GITHUB_TOKEN';
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The forge `OWNER/NAME` is on: DEX_FORGE_API_URL (default github.com's) and DEX_FORGE_TOKEN_ENV (default GITHUB_TOKEN), checked. */
function forgeDefaults(env: NodeJS.ProcessEnv): ForgeDefaults {
  const tokenEnv = env.DEX_FORGE_TOKEN_ENV?.trim() || DEFAULT_TOKEN_ENV;
  // The worker redacts the values of variables so named (host/secrets/secret-values.ts), as land.pr.tokenEnv must be.
  if (!ENV_NAME.test(tokenEnv) || !isSecretName(tokenEnv)) {
    throw new InvalidInput(`DEX_FORGE_TOKEN_ENV must name an environment variable with TOKEN in it (so dex redacts its value), not "${tokenEnv}"`);
  }
  const apiUrl = env.DEX_FORGE_API_URL?.trim();
  return { tokenEnv, ...(apiUrl ? { apiUrl: forgeApiUrl(apiUrl, 'DEX_FORGE_API_URL') } : {}) };
}

/** What `--repo` names: an existing folder is a local checkout (as before), else a URL or `OWNER/NAME` is a forge repository. */
function locateRepository(arg: string, env: NodeJS.ProcessEnv): RepoLocator {
  const path = resolve(arg);
  if (!isUrl(arg) && existsSync(path)) return { kind: 'local', path };
  const forge = parseForgeRepository(arg, forgeDefaults(env));
  return forge ? { ...forge, ...forgeCa(env) } : { kind: 'local', path };
}

/** DEX_FORGE_CA_FILE: the forge's own CA, for the workers' git and API as `land.pr.caFile` is for a landing (docs/fleet.md#a-task-on-a-forge-repository). */
function forgeCa(env: NodeJS.ProcessEnv): { caFile?: string } {
  const file = env.DEX_FORGE_CA_FILE?.trim();
  if (!file) return {};
  if (!isAbsolute(file)) throw new InvalidInput(`DEX_FORGE_CA_FILE must be an absolute path (the workers read it), not "${file}"`);
  const problem = caFileProblem(file);
  if (problem) throw new InvalidInput(`DEX_FORGE_CA_FILE ${file} ${problem}`);
  return { caFile: file };
}

/**
 * The forge repository `repo` (`--repo` as typed) names, checked: the token is there and the forge
 * lets it read the repository; undefined for a local path, which the request's own checks take
 * from here. Every refusal is an InvalidInput (exit 2) of one line.
 */
export async function checkForgeRepository(repo: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<ForgeRepository | undefined> {
  const at = repo === undefined ? undefined : locateRepository(repo, env);
  if (at?.kind !== 'forge') return undefined;
  try {
    await readForgeRepository(at, { env, ...(at.caFile ? { caFile: at.caFile } : {}) });
  } catch (err) {
    throw new InvalidInput(`--repo ${repo}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return at;
}

/** The forge repository at web URL `url` (a webhook delivery's), with this machine's forge settings (token variable, API, CA); undefined for a URL of no such shape. */
export function forgeRepositoryAt(url: string, env: NodeJS.ProcessEnv = process.env): ForgeRepository | undefined {
  const forge = parseForgeRepository(url, forgeDefaults(env));
  return forge ? { ...forge, ...forgeCa(env) } : undefined;
}

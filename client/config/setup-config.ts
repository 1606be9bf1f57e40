import { HIDDEN_ENV } from '../../core/safety/sandbox-policy';
import type { SetupConfig } from '../../core/run/setup-types';
import { isRecord, knownKeys, type Fail } from './config-section';

const SETUP_KEYS = ['commands', 'cache', 'inputs', 'allowHosts', 'env', 'copy', 'network'];
/** A host name or `*.domain`; `host:port` names one port only, and may be a registry on this host (docs/real-repositories.md#a-registry-behind-a-ca-of-its-own). */
const HOST = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?$/i;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A list of strings each `valid`, or a failure naming `key`. */
function list(v: unknown, key: string, fail: Fail, valid: (s: string) => boolean, what: string): string[] {
  const items = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(items) || !items.length || !items.every((s) => typeof s === 'string' && valid(s))) fail(key, `must be a list of ${what}`);
  return items as string[];
}

/** A path of the repository: relative, inside it, not its git folder. */
const repositoryPath = (s: string): boolean => s.trim() !== '' && !s.startsWith('/') && !s.split('/').includes('..') && !/^\.git(\/|$)/.test(s);

/**
 * The `setup` section of `dex.config.yaml` (docs/real-repositories.md#configuring-setup): `false`
 * turns setup off; `commands` replace detection (`cache` and `inputs` make them cached);
 * `allowHosts`, `env` (setup's secrets, never the agent's), `copy` and `network` refine it.
 */
export function parseSetup(v: unknown, fail: Fail): SetupConfig | false {
  if (v === false) return false;
  if (!isRecord(v)) fail('setup', 'must be false or a map');
  knownKeys(v, SETUP_KEYS, 'setup.', fail);
  const config: SetupConfig = {};
  if (v.commands !== undefined) config.commands = list(v.commands, 'setup.commands', fail, (s) => s.trim() !== '', 'commands');
  if (v.cache !== undefined) config.cache = list(v.cache, 'setup.cache', fail, repositoryPath, 'folders of the repository');
  if (v.inputs !== undefined) config.inputs = list(v.inputs, 'setup.inputs', fail, repositoryPath, 'files of the repository');
  if ((config.cache || config.inputs) && !config.commands) fail(config.cache ? 'setup.cache' : 'setup.inputs', 'needs setup.commands (detected ecosystems know their own)');
  if (config.cache && !config.inputs) fail('setup.cache', 'needs setup.inputs: the files whose content decides what the commands produce');
  if (v.allowHosts !== undefined) config.allowHosts = list(v.allowHosts, 'setup.allowHosts', fail, (s) => HOST.test(s), 'host names (or *.domain, or host:port)');
  if (v.env !== undefined) {
    config.env = list(v.env, 'setup.env', fail, (s) => ENV_NAME.test(s), 'environment variable names');
    const secret = config.env.find((name) => HIDDEN_ENV.test(name));
    if (secret) fail('setup.env', `may not pass ${secret}: the model's credentials and dex's payload keys never reach a command`);
  }
  if (v.copy !== undefined) config.copy = list(v.copy, 'setup.copy', fail, repositoryPath, 'paths of the repository');
  if (v.network !== undefined) {
    if (typeof v.network !== 'boolean') fail('setup.network', 'must be true or false');
    config.network = v.network;
  }
  return config;
}

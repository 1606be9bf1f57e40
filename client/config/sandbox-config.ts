import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { ALWAYS_PROTECTED_PATHS, DEFAULT_SANDBOX, HIDDEN_ENV, type SandboxLimits, type SandboxPolicy } from '../../core/safety/sandbox-policy';
import { isRecord, knownKeys, type Fail } from './config-section';

const SANDBOX_KEYS = ['mode', 'env', 'allowHosts', 'readOnlyPaths', 'limits'];
const LIMIT_KEYS: (keyof SandboxLimits)[] = ['processes', 'memoryMb', 'fileSizeMb'];
const HOST = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;

function stringList(v: unknown, key: string, fail: Fail, valid: (s: string) => boolean, what: string): string[] {
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string' && valid(s))) fail(key, `must be a list of ${what}`);
  return v as string[];
}

/** `~/x` and relative paths are the user's: absolute against their home. */
const expandHome = (path: string): string => (path.startsWith('~/') ? join(homedir(), path.slice(2)) : isAbsolute(path) ? path : join(homedir(), path));

/**
 * The `sandbox` section of `dex.config.yaml` (docs/security.md): `mode` (bwrap | off), `env`
 * (names passed in), `allowHosts` (reachable through the egress proxy), `readOnlyPaths`,
 * `limits`. Never the model's credentials.
 */
export function parseSandbox(v: unknown, fail: Fail): SandboxPolicy {
  if (!isRecord(v)) fail('sandbox', 'must be a map');
  knownKeys(v, SANDBOX_KEYS, 'sandbox.', fail);
  const policy: SandboxPolicy = { ...DEFAULT_SANDBOX, limits: { ...DEFAULT_SANDBOX.limits } };
  if (v.mode !== undefined) {
    if (v.mode !== 'bwrap' && v.mode !== 'off') fail('sandbox.mode', 'must be "bwrap" or "off"');
    policy.mode = v.mode;
  }
  if (v.env !== undefined) {
    policy.env = stringList(v.env, 'sandbox.env', fail, (s) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(s), 'environment variable names');
    const secret = policy.env.find((name) => HIDDEN_ENV.test(name));
    if (secret) fail('sandbox.env', `may not pass ${secret}: the model's credentials and dex's payload keys never reach its commands`);
  }
  if (v.allowHosts !== undefined) {
    policy.allowHosts = stringList(v.allowHosts, 'sandbox.allowHosts', fail, (s) => HOST.test(s), 'host names (or *.domain)');
  }
  if (v.readOnlyPaths !== undefined) {
    policy.readOnlyPaths = stringList(v.readOnlyPaths, 'sandbox.readOnlyPaths', fail, (s) => s.trim() !== '', 'paths').map(expandHome);
  }
  if (v.limits !== undefined) {
    if (!isRecord(v.limits)) fail('sandbox.limits', 'must be a map');
    for (const [key, value] of Object.entries(v.limits)) {
      if (!LIMIT_KEYS.includes(key as keyof SandboxLimits)) fail(`sandbox.limits.${key}`, `is not a known key (known: ${LIMIT_KEYS.join(', ')})`);
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) fail(`sandbox.limits.${key}`, 'must be a positive whole number');
      policy.limits[key as keyof SandboxLimits] = value;
    }
  }
  return policy;
}

/** `protectedPaths`: globs whose changes wait for a person; `dex.config.yaml` is always among them. */
export function parseProtectedPaths(v: unknown, fail: Fail): string[] {
  const globs = stringList(v, 'protectedPaths', fail, (s) => s.trim() !== '' && !s.startsWith('/'), 'path globs relative to the repository');
  return [...new Set([...ALWAYS_PROTECTED_PATHS, ...globs])];
}

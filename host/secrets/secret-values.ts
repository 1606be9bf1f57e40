import { MIN_SECRET_LENGTH, type KnownSecret } from '../../core/safety/redaction';

/** Names of environment variables whose values are secrets (docs/security.md#redaction). */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|_PAT$|^PAT_|COOKIE|SESSION)/i;
/** Names that match the pattern but hold nothing secret. */
const NOT_SECRET = /^(DEX_CODEC_KEYS_FILE|SSH_AUTH_SOCK|GPG_AGENT_INFO|KEYTIMEOUT)$/;

/**
 * Whether dex treats the value of the variable `name` as a secret: `land.pr.tokenEnv` must be one
 * (GITHUB_TOKEN, GH_TOKEN and the like are), so the forge token is redacted wherever it would appear.
 */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name) && !NOT_SECRET.test(name);
}

/** The secret values of `env`, named by their variables: what a worker must never store or send. */
export function secretValues(env: NodeJS.ProcessEnv = process.env, alsoNames: readonly string[] = []): KnownSecret[] {
  const named = new Set(alsoNames);
  return Object.entries(env)
    .filter(([name, value]) => value && value.length >= MIN_SECRET_LENGTH && (named.has(name) || isSecretName(name)))
    .map(([name, value]) => ({ name, value: value! }));
}


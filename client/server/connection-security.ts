/**
 * TLS and API-key options for a Temporal server other than dex's embedded one (self-hosted with
 * mTLS, or Temporal Cloud), read from the same environment variables as the stock Temporal CLI,
 * so one environment serves both (docs/production.md#deploying-dex-workers-against-any-temporal).
 */
import type { TLSConfig } from '@temporalio/client';
import { readFileSync } from 'node:fs';
import { InvalidInput } from '../../core/run/invalid-input';

/** What both the client's and the worker's connections take. */
export interface ConnectionSecurity {
  tls?: TLSConfig | boolean;
  apiKey?: string;
}

function readPem(env: NodeJS.ProcessEnv, name: string): Buffer | undefined {
  const path = env[name];
  if (!path) return undefined;
  try {
    return readFileSync(path);
  } catch (err) {
    throw new InvalidInput(`${name}=${path} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/**
 * TEMPORAL_TLS (true/false), TEMPORAL_TLS_CERT + TEMPORAL_TLS_KEY (client certificate, mTLS),
 * TEMPORAL_TLS_CA (the server's root CA), TEMPORAL_TLS_SERVER_NAME (SNI override), TEMPORAL_API_KEY.
 * Any certificate, CA or server name, or an API key, turns TLS on unless TEMPORAL_TLS=false says
 * otherwise (an API key sent in plain text is a key given away; Temporal Cloud requires TLS).
 * Bad input (half a key pair, an unreadable file, a TEMPORAL_TLS that is no boolean) throws InvalidInput.
 */
export function readConnectionSecurity(env: NodeJS.ProcessEnv = process.env): ConnectionSecurity {
  const flag = env.TEMPORAL_TLS?.trim().toLowerCase();
  if (flag && !['true', 'false', '1', '0'].includes(flag)) throw new InvalidInput(`TEMPORAL_TLS=${env.TEMPORAL_TLS} is neither true nor false`);
  if (Boolean(env.TEMPORAL_TLS_CERT) !== Boolean(env.TEMPORAL_TLS_KEY)) {
    throw new InvalidInput('TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together: set both (a client certificate and its key) or neither');
  }
  const crt = readPem(env, 'TEMPORAL_TLS_CERT');
  const key = readPem(env, 'TEMPORAL_TLS_KEY');
  const ca = readPem(env, 'TEMPORAL_TLS_CA');
  const serverName = env.TEMPORAL_TLS_SERVER_NAME || undefined;
  const apiKey = env.TEMPORAL_API_KEY || undefined;
  const tlsConfig: TLSConfig = {
    ...(serverName ? { serverNameOverride: serverName } : {}),
    ...(ca ? { serverRootCACertificate: ca } : {}),
    ...(crt && key ? { clientCertPair: { crt, key } } : {}),
  };
  const wantsTls = flag === 'true' || flag === '1' || Object.keys(tlsConfig).length > 0 || apiKey !== undefined;
  if ((flag === 'false' || flag === '0') && Object.keys(tlsConfig).length > 0) {
    throw new InvalidInput('TEMPORAL_TLS=false contradicts TEMPORAL_TLS_CERT/KEY/CA/SERVER_NAME: drop one or the other');
  }
  const tls = flag === 'false' || flag === '0' || !wantsTls ? undefined : Object.keys(tlsConfig).length ? tlsConfig : true;
  return { ...(tls !== undefined ? { tls } : {}), ...(apiKey ? { apiKey } : {}) };
}

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConnectionSecurity } from '../../../client/server/connection-security';
import { InvalidInput } from '../../../core/run/invalid-input';

const dir = mkdtempSync(join(tmpdir(), 'dex-tls-'));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const crt = file('client.pem', 'CERT');
const key = file('client.key', 'KEY');
const ca = file('ca.pem', 'CA');

describe('readConnectionSecurity (TEMPORAL_TLS_*, TEMPORAL_API_KEY)', () => {
  it('asks for nothing when nothing is set: plain gRPC, as to a local server', () => {
    expect(readConnectionSecurity({})).toEqual({});
  });

  it('turns TLS on for an API key (Temporal Cloud), and keeps the key', () => {
    expect(readConnectionSecurity({ TEMPORAL_API_KEY: 'k' })).toEqual({ tls: true, apiKey: 'k' });
  });

  it('reads a client certificate, its key, a CA and a server name for mTLS', () => {
    const got = readConnectionSecurity({ TEMPORAL_TLS_CERT: crt, TEMPORAL_TLS_KEY: key, TEMPORAL_TLS_CA: ca, TEMPORAL_TLS_SERVER_NAME: 'temporal.internal' });
    expect(got.tls).toMatchObject({ serverNameOverride: 'temporal.internal' });
    const tls = got.tls as { clientCertPair: { crt: Buffer; key: Buffer }; serverRootCACertificate: Buffer };
    expect(tls.clientCertPair.crt.toString()).toBe('CERT');
    expect(tls.clientCertPair.key.toString()).toBe('KEY');
    expect(tls.serverRootCACertificate.toString()).toBe('CA');
  });

  it('takes TEMPORAL_TLS=true alone (a server with a publicly trusted certificate), and false to keep an API key off TLS', () => {
    expect(readConnectionSecurity({ TEMPORAL_TLS: 'true' })).toEqual({ tls: true });
    expect(readConnectionSecurity({ TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' })).toEqual({ apiKey: 'k' });
  });

  it('stops on bad input with one line naming the variable', () => {
    const bad = [
      [{ TEMPORAL_TLS_CERT: crt }, /TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together/],
      [{ TEMPORAL_TLS_CA: join(dir, 'missing.pem') }, /TEMPORAL_TLS_CA=.*missing\.pem cannot be read: ENOENT/],
      [{ TEMPORAL_TLS: 'yes please' }, /TEMPORAL_TLS=yes please is neither true nor false/],
      [{ TEMPORAL_TLS: 'false', TEMPORAL_TLS_CA: ca }, /contradicts/],
    ] as const;
    for (const [env, message] of bad) {
      expect(() => readConnectionSecurity(env)).toThrow(InvalidInput);
      expect(() => readConnectionSecurity(env)).toThrow(message);
    }
  });
});

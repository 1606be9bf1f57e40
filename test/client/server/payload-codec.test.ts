import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCodecServer, type CodecServer } from '../../../client/server/codec-server';
import { AesGcmCodec, codecFromEnv, parseCodecKeys } from '../../../client/server/payload-codec';
import { InvalidInput } from '../../../core/run/invalid-input';
import { runDex } from '../../support/env/dex-cli';

const K1 = randomBytes(32).toString('base64');
const K2 = randomBytes(32).toString('base64');
const SECRET = 'the prompt says: ZEBRA-QUOKKA-7731';
const text = (b: Uint8Array | null | undefined) => Buffer.from(b ?? new Uint8Array()).toString('utf8');

describe('the payload codec', () => {
  it('seals a payload so nothing of it shows, names its key, and opens it again', async () => {
    const codec = new AesGcmCodec(parseCodecKeys(`k1:${K1}`));
    const plain = defaultPayloadConverter.toPayload({ description: SECRET });
    const [sealed] = await codec.encode([plain]);
    expect(text(sealed.metadata?.encoding)).toBe('binary/encrypted');
    expect(text(sealed.metadata?.['encryption-key-id'])).toBe('k1');
    expect(Buffer.from(sealed.data!).includes(Buffer.from('ZEBRA'))).toBe(false);
    expect(Buffer.from(sealed.data!).includes(Buffer.from('json/plain'))).toBe(false);
    const [opened] = await codec.decode([sealed]);
    expect(defaultPayloadConverter.fromPayload(opened)).toEqual({ description: SECRET });
  });

  it('rotates by key id: the first key seals, every key opens, a dropped key is named', async () => {
    const [underK1] = await new AesGcmCodec(parseCodecKeys(`k1:${K1}`)).encode([defaultPayloadConverter.toPayload(SECRET)]);
    const rotated = new AesGcmCodec(parseCodecKeys(`k2:${K2}, k1:${K1}`));
    expect(defaultPayloadConverter.fromPayload((await rotated.decode([underK1]))[0])).toBe(SECRET);
    const [underK2] = await rotated.encode([defaultPayloadConverter.toPayload(SECRET)]);
    expect(text(underK2.metadata?.['encryption-key-id'])).toBe('k2');
    await expect(new AesGcmCodec(parseCodecKeys(`k2:${K2}`)).decode([underK1])).rejects.toThrow(/sealed with key "k1", which DEX_CODEC_KEYS does not hold/);
  });

  it('refuses a payload changed in transit or relabelled to another key', async () => {
    const codec = new AesGcmCodec(parseCodecKeys(`k2:${K2},k1:${K1}`));
    const [sealed] = await codec.encode([defaultPayloadConverter.toPayload(SECRET)]);
    const flipped = Buffer.from(sealed.data!);
    flipped[20] ^= 1;
    await expect(codec.decode([{ ...sealed, data: flipped }])).rejects.toThrow();
    const relabelled: Payload = { ...sealed, metadata: { ...sealed.metadata, 'encryption-key-id': Buffer.from('k1') } };
    await expect(codec.decode([relabelled])).rejects.toThrow();
  });

  it('passes payloads that were never sealed', async () => {
    const plain = defaultPayloadConverter.toPayload({ a: 1 });
    expect(await new AesGcmCodec(parseCodecKeys(`k1:${K1}`)).decode([plain])).toEqual([plain]);
  });

  it.each([
    ['no id', K1, /entry 1 has no key id/],
    ['a short key', 'k1:AAAA', /key "k1" is not 32 bytes of base64/],
    ['not base64', `k1:${K1.slice(0, -4)}!!!!`, /key "k1" is not 32 bytes/],
    ['an id twice', `k1:${K1},k1:${K2}`, /key id "k1" appears twice/],
    ['nothing', ' , ', /holds no key/],
  ])('refuses %s as an input error', (_what, spec, message) => {
    expect(() => parseCodecKeys(spec)).toThrow(InvalidInput);
    expect(() => parseCodecKeys(spec)).toThrow(message);
  });

  it('is off when DEX_CODEC_KEYS is unset', () => {
    expect(codecFromEnv({})).toBeUndefined();
    expect(codecFromEnv({ DEX_CODEC_KEYS: `k1:${K1}` })?.encryptingKeyId).toBe('k1');
  });

  it('stops a command with one line and exit 2 on a malformed key, before it connects', async () => {
    const env = { TEMPORAL_ADDRESS: '127.0.0.1:1', DEX_HOME: '/nonexistent/dex-home', DEX_CODEC_KEYS: 'k1:AAAA' };
    for (const args of [['codec-server'], ['list']]) {
      const run = await runDex(args, { env, timeoutMs: 60_000 });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr.trim().split('\n')).toEqual(['dex: DEX_CODEC_KEYS: key "k1" is not 32 bytes of base64 (make one with `openssl rand -base64 32`)']);
    }
  });
});

describe('the codec server', () => {
  const UI = 'http://127.0.0.1:8233';
  let server: CodecServer;
  beforeAll(async () => {
    server = await startCodecServer({ codec: new AesGcmCodec(parseCodecKeys(`k2:${K2},k1:${K1}`)), port: 0, origins: [UI] });
  });
  afterAll(() => server.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(server.url + path, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', ...headers }, body: JSON.stringify(body) });

  it('encodes and decodes {payloads} in proto JSON, also under a namespace segment', async () => {
    const plain = { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from(JSON.stringify(SECRET)).toString('base64') };
    const encoded = await post('/encode', { payloads: [plain] });
    expect(encoded.status).toBe(200);
    const sealed = ((await encoded.json()) as { payloads: { metadata: Record<string, string>; data: string }[] }).payloads;
    expect(Buffer.from(sealed[0].metadata.encoding, 'base64').toString()).toBe('binary/encrypted');
    expect(Buffer.from(sealed[0].data, 'base64').toString()).not.toContain('ZEBRA');
    const decoded = await post('/default/decode', { payloads: sealed });
    expect(await decoded.json()).toEqual({ payloads: [plain] });
  });

  it("answers the Web UI's preflight and requests with CORS for its origin only", async () => {
    const preflight = await fetch(server.url + '/decode', {
      method: 'OPTIONS',
      headers: { Origin: UI, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-namespace' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/X-Namespace/);
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    const fromUi = await post('/decode', { payloads: [] }, { Origin: UI });
    expect(fromUi.headers.get('access-control-allow-origin')).toBe(UI);
    const fromElsewhere = await post('/decode', { payloads: [] }, { Origin: 'http://evil.example' });
    expect(fromElsewhere.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses what is not the protocol', async () => {
    expect((await post('/decode', { nope: 1 })).status).toBe(400);
    expect((await fetch(server.url + '/decode')).status).toBe(405);
    expect((await post('/elsewhere', { payloads: [] })).status).toBe(404);
    const bad = await post('/decode', { payloads: [{ metadata: { encoding: Buffer.from('binary/encrypted').toString('base64') }, data: 'AAAA' }] });
    expect(bad.status).toBe(400);
  });
});

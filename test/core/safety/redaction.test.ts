import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRedactor, redactDeep } from '../../../core/safety/redaction';
import { secretValues } from '../../../host/secrets/secret-values';
import { RedactingCodec } from '../../../client/server/redacting-codec';
import { dexDataConverter, AesGcmCodec } from '../../../client/server/payload-codec';
import { redactingStore } from '../../../store/redacting-store';
import { openSqliteDexStore } from '../../../store/sqlite/sqlite-dex-store';

const GH = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';

describe('the redaction step', () => {
  const redactor = createRedactor(secretValues({ GITHUB_TOKEN: 'plain-secret-value-1', HOME: '/root', SHORT_TOKEN: 'abc' }));

  it('removes the usual shapes of credentials, each with a marker that says what went', () => {
    const text = [
      `git clone https://x-access-token:${GH}@github.com/acme/app.git`,
      'key: sk-ant-api03-AbCdEf0123456789',
      'aws AKIAABCDEFGHIJKLMNOP here',
      'Authorization: Bearer abc.def.ghi',
      'curl -H "authorization: token 123456789012345"',
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----',
      'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz',
    ].join('\n');
    const out = redactor.redact(text);
    expect(out).toBe(
      [
        'git clone https://[REDACTED:url-userinfo]@github.com/acme/app.git',
        'key: [REDACTED:anthropic-key]',
        'aws [REDACTED:aws-access-key] here',
        'Authorization: [REDACTED:authorization]',
        'curl -H "authorization: [REDACTED:authorization]"',
        '[REDACTED:private-key]',
        '[REDACTED:github-token]',
      ].join('\n'),
    );
    // A second pass finds nothing more: markers are not secrets.
    expect(redactor.finds(out)).toBe(false);
    expect(redactor.redact(out)).toBe(out);
  });

  it("removes the values of the environment's secret variables, named, and leaves ordinary text and short values alone", () => {
    expect(redactor.redact('echo plain-secret-value-1 > out')).toBe('echo [REDACTED:GITHUB_TOKEN] > out');
    const ordinary = 'sum(2, 3) should be 5; see /root/src and abc';
    expect(redactor.finds(ordinary)).toBe(false);
    expect(redactor.redact(ordinary)).toBe(ordinary);
  });

  it('redacts every string in a value, not its keys, and returns the same object when nothing changed', () => {
    const clean = { a: ['x', { b: 'y' }] };
    expect(redactDeep(clean, redactor)).toBe(clean);
    expect(redactDeep({ 'plain-secret-value-1': ['ok', { t: GH }] }, redactor)).toEqual({ 'plain-secret-value-1': ['ok', { t: '[REDACTED:github-token]' }] });
  });

  it('redacts JSON payloads on their way to the server, before they are sealed', async () => {
    const codec = new RedactingCodec(redactor);
    const json = (value: unknown) => ({ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(value)) });
    const clean = json({ preview: 'all fine' });
    const [same, redacted] = await codec.encode([clean, json({ preview: `token ${GH}` })]);
    expect(same).toBe(clean);
    expect(JSON.parse(Buffer.from(redacted.data!).toString())).toEqual({ preview: 'token [REDACTED:github-token]' });
    // The data converter runs redaction first, then the AES codec when there is one.
    const sealing = new AesGcmCodec([{ id: 'k', key: Buffer.alloc(32, 1) }]);
    const codecs = dexDataConverter(sealing, redactor).payloadCodecs!;
    expect(codecs[0]).toBeInstanceOf(RedactingCodec);
    expect(codecs[1]).toBe(sealing);
  });

  it('redacts what activities store: tool results, messages, artifacts', async () => {
    const raw = await openSqliteDexStore(join(mkdtempSync(join(tmpdir(), 'dex-redact-')), 'dex.db'));
    const store = redactingStore(raw, redactor);
    await store.putToolResult('tr', 'tu1', { name: 'run_command', content: `origin https://x:${GH}@h/r.git`, isError: false });
    await store.appendMessage('tr', 1, 'user', [{ type: 'tool_result', content: 'plain-secret-value-1' }]);
    await store.putArtifact('a', 'verify', 'Authorization: Basic Zm9vOmJhcg==');
    expect((await raw.getToolResult('tr', 'tu1'))!.content).toBe('origin https://[REDACTED:url-userinfo]@h/r.git');
    expect(JSON.stringify((await raw.getMessage('tr', 1))!.content)).toContain('[REDACTED:GITHUB_TOKEN]');
    expect((await raw.getArtifact('a'))!.content).toBe('Authorization: [REDACTED:authorization]');
    // Reads and everything else pass through.
    expect(store.kind).toBe(raw.kind);
    await store.close();
  });
});

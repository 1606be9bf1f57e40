/**
 * Payload encryption (docs/production.md#payload-encryption): every payload dex sends to the
 * Temporal server (workflow inputs, activity results, signals, query answers) is sealed with
 * AES-256-GCM before it leaves the process, so prompts, file contents and model answers never
 * rest on the server in plain text. The same codec runs in the CLI, the worker and
 * `dex codec-server`, which lends it to the stock CLI and the Web UI.
 */
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { InvalidInput } from '../../core/run/invalid-input';
import { createRedactor, type Redactor } from '../../core/safety/redaction';
import { secretValues } from '../../host/secrets/secret-values';
import { RedactingCodec } from './redacting-codec';

/** The metadata that marks an encrypted payload: Temporal's conventional encoding name, and which key sealed it. */
const ENCRYPTED_ENCODING = 'binary/encrypted';
const KEY_ID_METADATA = 'encryption-key-id';

/** The environment variable that holds the keys: `id:base64,id:base64`, the first encrypts, all decrypt. */
export const CODEC_KEYS_ENV = 'DEX_CODEC_KEYS';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** One AES-256 key and the id that names it in each payload it sealed. */
interface CodecKey {
  id: string;
  key: Buffer;
}

/**
 * Reads `DEX_CODEC_KEYS`: `k2:BASE64,k1:BASE64`, the first key encrypts and every key decrypts,
 * so a key is rotated by putting the new one in front and keeping the old ones while runs they
 * sealed may still be read. An error names the entry, never the key's bytes.
 */
export function parseCodecKeys(spec: string): CodecKey[] {
  const entries = spec.split(',').map((e) => e.trim()).filter(Boolean);
  if (!entries.length) throw new InvalidInput(`${CODEC_KEYS_ENV} holds no key: expected id:base64key[,id:base64key…]`);
  const seen = new Set<string>();
  return entries.map((entry, i) => {
    const colon = entry.indexOf(':');
    const id = colon < 0 ? '' : entry.slice(0, colon);
    if (!KEY_ID.test(id)) {
      throw new InvalidInput(`${CODEC_KEYS_ENV}: entry ${i + 1} has no key id (expected id:base64key, the id of letters, digits, . _ -)`);
    }
    if (seen.has(id)) throw new InvalidInput(`${CODEC_KEYS_ENV}: key id "${id}" appears twice`);
    seen.add(id);
    const b64 = entry.slice(colon + 1);
    const key = Buffer.from(b64, 'base64');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || key.length !== KEY_BYTES) {
      throw new InvalidInput(`${CODEC_KEYS_ENV}: key "${id}" is not ${KEY_BYTES} bytes of base64 (make one with \`openssl rand -base64 32\`)`);
    }
    return { id, key };
  });
}

/** AES-256-GCM over whole payloads (their protobuf bytes), with the key id in the metadata. */
export class AesGcmCodec implements PayloadCodec {
  private readonly byId: Map<string, Buffer>;

  constructor(private readonly keys: CodecKey[]) {
    if (!keys.length) throw new Error('AesGcmCodec needs at least one key');
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  /** The id of the key new payloads are sealed with. */
  get encryptingKeyId(): string {
    return this.keys[0].id;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const { id, key } = this.keys[0];
    return payloads.map((payload) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      // The key id is authenticated too: a payload cannot be relabelled to another key unnoticed.
      cipher.setAAD(Buffer.from(id));
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return { metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: Buffer.from(id) }, data: sealed };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      // Payloads written before encryption was turned on (or by a client without it) pass as they are.
      if (text(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) return payload;
      const id = text(payload.metadata?.[KEY_ID_METADATA]);
      const key = id === undefined ? undefined : this.byId.get(id);
      if (!key) throw new Error(`a payload is sealed with key "${id ?? '?'}", which ${CODEC_KEYS_ENV} does not hold`);
      const data = Buffer.from(payload.data ?? new Uint8Array());
      if (data.length < IV_BYTES + TAG_BYTES) throw new Error(`an encrypted payload (key "${id}") is too short`);
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(id!));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
      return temporal.api.common.v1.Payload.decode(plain) as Payload;
    });
  }
}

function text(bytes: Uint8Array | null | undefined): string | undefined {
  return bytes ? Buffer.from(bytes).toString('utf8') : undefined;
}

/** The codec `DEX_CODEC_KEYS` asks for; undefined when it is unset (the embedded server's default: off). */
export function codecFromEnv(env: NodeJS.ProcessEnv = process.env): AesGcmCodec | undefined {
  const spec = env[CODEC_KEYS_ENV];
  return spec?.trim() ? new AesGcmCodec(parseCodecKeys(spec)) : undefined;
}

/**
 * The data converter of every client and worker dex builds: the default one, its payloads redacted
 * (client/server/redacting-codec.ts) and then sealed when a codec is given.
 */
export function dexDataConverter(codec: PayloadCodec | undefined, redactor: Redactor = createRedactor(secretValues())): DataConverter {
  return { payloadCodecs: [new RedactingCodec(redactor), ...(codec ? [codec] : [])] };
}

import type { Payload, PayloadCodec } from '@temporalio/common';
import { redactDeep, type Redactor } from '../../core/safety/redaction';

const JSON_ENCODING = 'json/plain';

/**
 * The redaction step on the way to the Temporal server (docs/security.md#redaction): every JSON
 * payload — workflow inputs, activity results and their previews, signals, query answers, current
 * details — has its strings redacted before it is sealed (when encryption is on) and sent, so no
 * history holds a secret. Decoding changes nothing: what was removed is gone. Payloads with
 * nothing to remove (the common case) pass as they are, after one scan of their text.
 */
export class RedactingCodec implements PayloadCodec {
  constructor(private readonly redactor: Redactor) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (!payload.data || Buffer.from(payload.metadata?.encoding ?? new Uint8Array()).toString() !== JSON_ENCODING) return payload;
      const text = Buffer.from(payload.data).toString('utf8');
      if (!this.redactor.finds(text)) return payload;
      const redacted = JSON.stringify(redactDeep(JSON.parse(text), this.redactor));
      return { ...payload, data: Buffer.from(redacted, 'utf8') };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  }
}
